#!/usr/bin/env bash
# Other processes on a run's CPUs: a busy loop pinned to the CPU a real run is pinned to takes
# about half of it. The run's result records the share other processes used during its summary
# window (monitor.foreign_cpu), the run warns, the summary lists the run under contended_runs
# and the report prints CONTENDED. The share is the kernel's accounting, not a clock bound:
# CFS gives two runnable tasks on one CPU about half each, whatever the machine's speed.
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); busy=
trap '[ -n "$busy" ] && kill "$busy" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cpu=$(python3 -c "import os; print(min(os.sched_getaffinity(0)))")

taskset -c "$cpu" sh -c 'while :; do :; done' & busy=$!
OMP_NUM_THREADS=1 taskset -c "$cpu" "$MILARUN" run polynome -o "$work/res/" --experiment-name s.toy --job-id 0.0 -- \
  --stop-at-count --max-count 1000 --min-duration 6 2> "$work/run.log" || { cat "$work/run.log"; fail "run"; }
kill "$busy"; wait "$busy" 2>/dev/null || true; busy=
python3 - "$work"/res/s.toy.J0.0.*.json <<'PY' || fail "the result does not record the busy loop"
import json, sys
f = json.load(open(sys.argv[1]))["monitor"]["foreign_cpu"]
assert f["cpus"] == 1 and f["usable_cpus"] == 1, f
assert f["window_share"] >= 0.2, f  # about 0.5: the loop's half of the CPU
assert f["share"]["max"] >= f["window_share"] - 1e-9, f
PY
grep -q "warning: other processes used [0-9]*% of its CPUs during its summary window" "$work/run.log" \
  || { cat "$work/run.log"; fail "no warning from the run"; }
"$MILARUN" summary "$work/res" -o "$work/summary.json" 2> "$work/summary.err" || fail "summary"
python3 -c "import json; e = json.load(open('$work/summary.json'))['s.toy']; c = list(e['contended_runs'].values()); assert len(c) == 1 and c[0]['cpu_share'] >= 0.2, e" \
  || fail "summary has no contended_runs"
grep -q "other processes used" "$work/summary.err" || fail "summary did not warn"
"$MILARUN" report "$work/res" > "$work/report.txt" 2> /dev/null || fail "report"
grep -q "CONTENDED: s.toy has 1 run(s) that did not have their devices to themselves" "$work/report.txt" || { cat "$work/report.txt"; fail "report: no CONTENDED line"; }
echo "contention_cli_test: passed ($(python3 -c "import glob,json; print(round(json.load(open(glob.glob('$work/res/*.json')[0]))['monitor']['foreign_cpu']['window_share'], 2))") of the CPU to the busy loop)"
