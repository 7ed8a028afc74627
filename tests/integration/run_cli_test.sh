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
MILARUN_MALLOC=system "$MILARUN" run polynome -- --max-count 1000 > "$work/sys.json" || fail "MILARUN_MALLOC=system"
python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['inventory']['malloc']; assert m['policy']=='system', m" "$work/sys.json"
rc_malloc=0; MILARUN_MALLOC=tcmalloc "$MILARUN" run polynome -- --max-count 1000 > /dev/null 2> "$work/em" || rc_malloc=$?
[ $rc_malloc = 2 ] && grep -q "MILARUN_MALLOC=tcmalloc is not a malloc policy" "$work/em" || fail "bad MILARUN_MALLOC: rc $rc_malloc"

"$MILARUN" run polynome -o "$work/res/" --experiment-name t.toy --job-id 0.0 -- --max-count 5000
f=$(ls "$work"/res/t.toy.J0.0.2*.json) || fail "no result file in dir"
"$MILARUN" rerun "$f" -o "$work/re.json" -- --batch-size 32 2> "$work/rerun.log"
grep -q -- "--batch-size 32" "$work/rerun.log" || fail "rerun did not print the command"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); a=r['arguments']; assert a.count('--batch-size')==1 and a[a.index('--batch-size')+1]=='32', a" "$work/re.json"

"$MILARUN" run polynome -- --help | grep -q -- "--poly-degree" || fail "workload --help"

set +e
"$MILARUN" run no_such_thing -- 2> "$work/e1"; r1=$?
"$MILARUN" run polynome -- --no-such-flag 2> "$work/e2"; r2=$?
"$MILARUN" run polynome -o "$work/bad/" -- --poly-degree 0 --max-count 100 2> "$work/e3"; r3=$?
TMPDIR="$work/tmp" "$MILARUN" run polynome -o /nonexistent-dir/r.json -- --max-count 100 > "$work/o4" 2> "$work/e4"; r4=$?
TMPDIR=/proc/no-such-dir "$MILARUN" run polynome -o /nonexistent-dir/r.json -- --max-count 100 > "$work/o5" 2> "$work/e5"; r5=$?
set -e
[ $r1 = 2 ] && grep -q "unknown experiment" "$work/e1" || fail "unknown experiment: rc $r1"
[ $r2 = 2 ] && grep -q "no-such-flag" "$work/e2" || fail "unknown argument: rc $r2"
[ $r3 = 1 ] || fail "a throwing workload should fail the run: rc $r3"
f=$(ls "$work"/bad/polynome.J0.FAIL.*.json) || fail "no FAIL file for a throwing workload"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['success'] is False and 'poly-degree' in r['error'], r" "$f"
# An unwritable -o parks the result under $TMPDIR/milarun-unsaved/ (jobs --resume moves it back) ...
[ $r4 = 0 ] && grep -q "/nonexistent-dir/r.json" "$work/e4" || fail "unwritable -o: rc $r4: $(cat "$work/e4")"
parked=$(ls "$work"/tmp/milarun-unsaved/*/r.json) || fail "unwritable -o: result not parked: $(cat "$work/e4")"
grep -q "$parked" "$work/e4" || fail "unwritable -o: the parked path is not named"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['success']" "$parked" || fail "parked result"
# ... and when that fails too, the JSON goes to stdout (exit 2): nothing is lost.
[ $r5 = 2 ] && grep -q "choose a writable -o" "$work/e5" || fail "unwritable -o and TMPDIR: rc $r5"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['success']" "$work/o5" || fail "result lost on unwritable -o"
echo "run_cli_test: 1 passed, 0 failed"
