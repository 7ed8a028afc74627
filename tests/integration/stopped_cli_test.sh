#!/usr/bin/env bash
# A run stopped mid-measure (SIGSTOP for 3 s, as Ctrl-Z, a debugger or `docker pause` would): the
# block that spans the stop is timed as work, so its slices hold a rate the machine never had.
# Once the run has closed its first slice, it gets SIGSTOP, then SIGCONT 3 s later.
#  1. The default, the window rule: the run records the stop (monitor.stopped) and goes on until
#     its summary window no longer holds it; it is not flagged.
#  2. --stop-at-count, the original's stop: the window holds the stop; the run warns, the
#     summary lists it under contended_runs and the report prints CONTENDED.
# The stop is the kernel's doing, not a clock bound: a stopped process runs nothing at all.
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); pid=
trap '[ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# run NAME ARGS...: polynome under NAME, stopped for 3 s once its first slice is logged.
run() {
  local name=$1; shift
  OMP_NUM_THREADS=1 "$MILARUN" run polynome -o "$work/$name/" --experiment-name "s.$name" --job-id 0.0 -- "$@" \
    2> "$work/$name.log" &
  pid=$!
  until grep -q "s.$name: [0-9]*/" "$work/$name.log" 2> /dev/null; do
    kill -0 "$pid" 2> /dev/null || { cat "$work/$name.log"; fail "$name ended before its first slice"; }
    sleep 0.1
  done
  kill -STOP "$pid"; sleep 3; kill -CONT "$pid"
  wait "$pid" || { cat "$work/$name.log"; fail "$name"; }
  pid=
}

run rule --max-count 1000 --min-duration 6
python3 - "$work"/rule/s.rule.J0.0.*.json <<'PY' || { cat "$work/rule.log"; fail "the window rule did not wait the stop out"; }
import json, sys
d = json.load(open(sys.argv[1]))
s, t = d["monitor"]["stopped"], d["timings"]["train"]
assert s["episodes"] >= 1 and s["total_s"] >= 2, s  # 3 s, less up to 1 s before the monitor's due wake-up
assert s["window_share"] < 0.1, s
assert t["extended_s"] > 0, t["extended_s"]
PY
grep -q "its process was stopped" "$work/rule.log" && { cat "$work/rule.log"; fail "the extended run still warns"; }

run original --stop-at-count --max-count 1000 --min-duration 6
python3 - "$work"/original/s.original.J0.0.*.json <<'PY' || fail "the result does not record the stop in its window"
import json, sys
s = json.load(open(sys.argv[1]))["monitor"]["stopped"]
assert s["total_s"] >= 2 and s["window_share"] > 0.2, s  # about 3 s of the ~6 s window
PY
grep -q "warning: its process was stopped, not running at all, [0-9]*% of the time" "$work/original.log" \
  || { cat "$work/original.log"; fail "no warning from the run"; }
"$MILARUN" summary "$work/original" -o "$work/summary.json" 2> "$work/summary.err" || fail "summary"
python3 -c "import json; e = json.load(open('$work/summary.json'))['s.original']; c = list(e['contended_runs'].values()); assert len(c) == 1 and c[0]['stopped_share'] > 0.2, e" \
  || fail "summary has no contended_runs"
"$MILARUN" report "$work/original" > "$work/report.txt" 2> /dev/null || fail "report"
grep -q "CONTENDED: s.original has 1 run(s)" "$work/report.txt" || { cat "$work/report.txt"; fail "report: no CONTENDED line"; }
echo "stopped_cli_test: passed (stop of $(python3 -c "import glob,json; print(round(json.load(open(glob.glob('$work/original/*.json')[0]))['monitor']['stopped']['total_s'], 1))") s recorded; the window rule waited it out)"
