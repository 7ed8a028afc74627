#!/usr/bin/env bash
# milarun run / rerun / bad input through the real binary.
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The seed's example, as written; no -o prints JSON on stdout.
"$MILARUN" run milabench.models.polynome:main -d "$work" -- --poly-degree 6 --batch-size 1024 --max-count 1_000_000 \
  > "$work/out.json" || fail "seed example"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['success'] and r['timings']['train']['count']>=1000000 and r['model']['parameters']==7, r" "$work/out.json"
# The allocator policy is applied and recorded; an unknown one is refused before the run.
python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['inventory']['malloc']; assert m['policy']=='heap', m" "$work/out.json"
# OpenMP's wait: a short spin unless the user chose one (launch/openmp_wait.hpp), recorded with the run.
env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$MILARUN" run polynome -- --stop-at-count --max-count 1000 > "$work/omp.json" \
  || fail "default OpenMP spin"
python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['environ']; assert e.get('GOMP_SPINCOUNT')=='10000' and 'OMP_WAIT_POLICY' not in e, e" \
  "$work/omp.json" || fail "the default OpenMP spin is not recorded"
env -u GOMP_SPINCOUNT OMP_WAIT_POLICY=PASSIVE "$MILARUN" run polynome -- --stop-at-count --max-count 1000 > "$work/omp2.json" \
  || fail "OMP_WAIT_POLICY=PASSIVE"
python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['environ']; assert e.get('OMP_WAIT_POLICY')=='PASSIVE' and 'GOMP_SPINCOUNT' not in e, e" \
  "$work/omp2.json" || fail "the user's OpenMP wait policy is not kept"
MILARUN_MALLOC=system "$MILARUN" run polynome -- --stop-at-count --max-count 1000 > "$work/sys.json" || fail "MILARUN_MALLOC=system"
python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['inventory']['malloc']; assert m['policy']=='system', m" "$work/sys.json"
rc_malloc=0; MILARUN_MALLOC=tcmalloc "$MILARUN" run polynome -- --stop-at-count --max-count 1000 > /dev/null 2> "$work/em" || rc_malloc=$?
[ $rc_malloc = 2 ] && grep -q "MILARUN_MALLOC=tcmalloc is not a malloc policy" "$work/em" || fail "bad MILARUN_MALLOC: rc $rc_malloc"

"$MILARUN" run polynome -o "$work/res/" --experiment-name t.toy --job-id 0.0 -- --stop-at-count --max-count 5000
f=$(ls "$work"/res/t.toy.J0.0.2*.json) || fail "no result file in dir"
"$MILARUN" rerun "$f" -o "$work/re.json" -- --batch-size 32 2> "$work/rerun.log"
grep -q -- "--batch-size 32" "$work/rerun.log" || fail "rerun did not print the command"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); a=r['arguments']; assert a.count('--batch-size')==1 and a[a.index('--batch-size')+1]=='32', a" "$work/re.json"

"$MILARUN" run polynome -- --help | grep -q -- "--poly-degree" || fail "workload --help"

set +e
"$MILARUN" run no_such_thing -- 2> "$work/e1"; r1=$?
"$MILARUN" run polynome -- --no-such-flag 2> "$work/e2"; r2=$?
"$MILARUN" run polynome -o "$work/bad/" -- --poly-degree 0 --max-count 100 2> "$work/e3"; r3=$?
TMPDIR="$work/tmp" "$MILARUN" run polynome -o /nonexistent-dir/r.json -- --stop-at-count --max-count 100 > "$work/o4" 2> "$work/e4"; r4=$?
TMPDIR=/proc/no-such-dir "$MILARUN" run polynome -o /nonexistent-dir/r.json -- --stop-at-count --max-count 100 > "$work/o5" 2> "$work/e5"; r5=$?
set -e
[ $r1 = 2 ] && grep -q "unknown experiment" "$work/e1" || fail "unknown experiment: rc $r1"
[ $r2 = 2 ] && grep -q "no-such-flag" "$work/e2" || fail "unknown argument: rc $r2"
[ $r3 = 1 ] || fail "a throwing workload should fail the run: rc $r3"
f=$(ls "$work"/bad/polynome.J0.FAIL.*.json) || fail "no FAIL file for a throwing workload"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['success'] is False and 'poly-degree' in r['error'], r" "$f"
# An unwritable -o parks the result under $TMPDIR/milarun-unsaved/ (jobs --resume moves it back),
# says so in one line and exits 3: the result is not where it was asked ...
[ $r4 = 3 ] && grep -q "/nonexistent-dir/r.json" "$work/e4" || fail "unwritable -o: rc $r4: $(cat "$work/e4")"
[ "$(grep -c "milarun-unsaved" "$work/e4")" = 1 ] || fail "unwritable -o: not one line: $(cat "$work/e4")"
parked=$(ls "$work"/tmp/milarun-unsaved/*/r.json) || fail "unwritable -o: result not parked: $(cat "$work/e4")"
grep -q "$parked" "$work/e4" || fail "unwritable -o: the parked path is not named"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['success']" "$parked" || fail "parked result"
# ... and when that fails too, the JSON goes to stdout (exit 3): nothing is lost.
[ $r5 = 3 ] && grep -q "choose a writable -o" "$work/e5" || fail "unwritable -o and TMPDIR: rc $r5"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['success']" "$work/o5" || fail "result lost on unwritable -o"
# A folder under /proc cannot hold a result: parked, one line, not exit 0.
rc6=0; TMPDIR="$work/tmp6" "$MILARUN" run polynome -o /proc/x/ -- --stop-at-count --max-count 100 > /dev/null 2> "$work/e6" || rc6=$?
[ $rc6 = 3 ] && [ "$(grep -c "/proc/x/.*milarun-unsaved" "$work/e6")" = 1 ] || fail "-o /proc/x/: rc $rc6: $(cat "$work/e6")"
ls "$work"/tmp6/milarun-unsaved/*/polynome.J0.*.json > /dev/null || fail "-o /proc/x/: result not parked"

# Out of memory: failure kind oom, ONE line in "error" (no backtrace), exit 1.
rc7=0; "$MILARUN" run polynome -o "$work/oom/" -- --batch-size 100000000000 --max-count 100 2> "$work/e7" || rc7=$?
[ $rc7 = 1 ] || fail "out of memory: rc $rc7: $(tail -3 "$work/e7")"
python3 - "$work"/oom/polynome.J0.FAIL.*.json <<'PY' || fail "out of memory result"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["failure_kind"] == "oom", r["failure_kind"]
assert "\n" not in r["error"] and "frame #" not in r["error"] and len(r["error"]) < 300, r["error"]
assert r["error"].startswith("out of memory"), r["error"]
PY

# --version on both binaries, and the same version and commit in every result.
"$MILARUN" --version | grep -Eq "^milarun [0-9.]+ \(commit ([0-9a-f]+(-dirty)?|unknown)\)$" || fail "--version: $("$MILARUN" --version)"
"$(dirname "$MILARUN")/milarun-torch" --version | grep -q "^milarun " || fail "milarun-torch --version"

# The original's result keys and types; set-up outside the slices, recorded; UTC file stamps.
python3 - "$f" "$work/out.json" "$("$MILARUN" --version)" <<'PY' || fail "result keys"
import json, sys, datetime
r = json.load(open(sys.argv[2]))
assert isinstance(r["gpu"], str) and r["gpu"], r["gpu"]
assert isinstance(r["device_count"], int) and isinstance(r["devices"], list), r
assert r["device"] is None or isinstance(r["device"], int), r["device"]
t = r["timings"]["train"]
assert t["type"] == "milabench.experiment.RateLogger", t["type"]
for k in ("start", "end"):
    datetime.datetime.strptime(t[k].split(".")[0], "%Y-%m-%d %H:%M:%S")
assert isinstance(t["metrics"], dict), t["metrics"]  # the loss is there once a slice closed (machine speed)
assert all(r["metrics"].get(k) == v for k, v in t["metrics"].items()), (t["metrics"], r["metrics"])
assert abs(t["overhead"] - (t["wall_time"] - t["time"])) < 1e-9, t
assert 0 <= r["timings"]["setup"]["time"] <= r["timings"]["program"]["time"], r["timings"]
assert t["wall_time"] <= r["timings"]["program"]["time"], r["timings"]
assert sys.argv[3] == "milarun %s (commit %s)" % (r["milarun"]["version"], r["milarun"]["commit"]), (sys.argv[3], r["milarun"])
PY
ls "$work"/res/t.toy.J0.0."$(date -u +%Y%m%d)"-*.json > /dev/null 2>&1 || \
  ls "$work"/res/t.toy.J0.0."$(date -u -d '1 hour ago' +%Y%m%d)"-*.json > /dev/null || fail "file stamp not UTC"

# --min-duration: the run goes on past --max-count until that much was timed.
"$MILARUN" run polynome -o "$work/min.json" -- --stop-at-count --max-count 64 --batch-size 64 --min-duration 1.5 2> /dev/null \
  || fail "--min-duration run"
python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['timings']['train']; assert t['time']>=1.5 and t['count']>64 and t['min_duration']==1.5, t" "$work/min.json" \
  || fail "--min-duration not honoured"
echo "run_cli_test: 1 passed, 0 failed"
