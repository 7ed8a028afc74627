#!/usr/bin/env bash
# milarun jobs end to end: the CPU profile on 2 CPU partitions, repeated;
# failing and crashing runs cost only their own result; bad input is refused.
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"

# Four of the CPU profile's tests, with its arguments and scheme and counts
# for a few seconds each (toy_lstm: one LBFGS step, which costs seconds
# whatever the batch).
python3 - "$SRC/profiles/cpu.json" > cpu.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
counts = {"toy_reg": 2000000, "toy_lstm": 5, "vae": 6000, "cart": 5000}
assert set(counts) <= set(p), "profiles/cpu.json lost one of " + str(sorted(counts))
q = {"*": p["*"]}
for k, n in counts.items():
    q[k] = p[k]
    q[k]["arguments"]["--max-count"] = n
    q[k]["arguments"]["--stop-at-count"] = True
q["toy_lstm"]["arguments"]["--samples"] = 8
print(json.dumps(q, indent=1))
PY
"$MILARUN" dataset --profile cpu.json -d data --scale 0.02 > ds.log || fail "dataset"
grep -q "mnist: done" ds.log || fail "mnist not generated: $(cat ds.log)"
"$MILARUN" dataset mnist -d data | grep -q "present" || fail "second dataset call should find it present"

rc=0
"$MILARUN" jobs cpu.json -d data -o out --devices 2 --repeat 2 -- --sample-duration 0.05 > jobs.log 2>&1 || rc=$?
cat jobs.log
[ $rc = 0 ] || fail "jobs on the CPU profile exited $rc"
for t in toy_reg toy_lstm vae cart; do
  for j in 0.0 0.1 1.0 1.1; do
    ls out/cpu.$t.J$j.2*.json > /dev/null 2>&1 || fail "missing result cpu.$t.J$j"
  done
done
[ "$(ls out/*.FAIL.* 2>/dev/null | wc -l)" = 0 ] || fail "unexpected FAIL files"
grep -q "total: 16 processes, 0 failed" jobs.log || fail "total line"
python3 - out <<'PY' || fail "result contents"
import json, glob, sys
for f in glob.glob(sys.argv[1] + "/*.json"):
    r = json.load(open(f))
    assert r["success"], f
    part = r["job_id"].split(".")[1]
    assert r["isolation"]["cpus"] == [int(part)], (f, r["isolation"])  # one CPU each, pinned
    assert r["environ"].get("OMP_NUM_THREADS") == "1", r["environ"]
    assert r["model"]["parameters"] > 0, f
PY
echo "junk" > out/junk.json
"$MILARUN" summary out -o summary.json 2> summary.err || fail "summary"
grep -q "junk.json" summary.err || fail "junk file not named in a warning"
python3 -c "
import json; s = json.load(open('summary.json'))
assert sorted(s) == ['cpu.cart', 'cpu.toy_lstm', 'cpu.toy_reg', 'cpu.vae'], sorted(s)
for k, v in s.items(): assert v['n'] == 4 and v['failures'] == 0 and len(v['pergpu']) == 2, (k, v)
" || fail "summary contents"
"$MILARUN" report out --weights "$SRC/weights/cpu.json" --html report.html > report.txt || fail "report"
grep -q "^Score:" report.txt && grep -q "PASS" report.txt || fail "report: $(cat report.txt)"
grep -q "<svg" report.html || fail "no rate chart in the HTML"

# A failing workload and a crashing process cost their own results only.
cat > faults.json <<'JSON'
{"*": {"partition_scheme": {"type": "per-gpu"}},
 "good": {"experiment": "milarun.models.polynome:main", "arguments": {"--stop-at-count": true, "--max-count": 2000}},
 "throws": {"experiment": "milarun.models.polynome:main", "arguments": {"--poly-degree": 0}},
 "segv": {"experiment": "milarun.models.polynome:main", "exec_prefix": ["sh", "-c", "kill -SEGV $$"]},
 "after": {"experiment": "milarun.models.polynome:main", "arguments": {"--stop-at-count": true, "--max-count": 2000}}}
JSON
rc=0; "$MILARUN" jobs faults.json -d data -o fo --devices 2 > faults.log 2>&1 || rc=$?
[ $rc = 1 ] || fail "jobs with failures should exit 1, got $rc: $(cat faults.log)"
[ "$(ls fo/faults.good.J0.*.json fo/faults.after.J0.*.json | grep -vc FAIL)" = 4 ] || fail "good runs lost"
[ "$(ls fo/faults.throws.J0.*.FAIL.*.json | wc -l)" = 2 ] || fail "no FAIL file for the throwing run"
[ "$(ls fo/faults.segv.J0.*.FAIL.*.json | wc -l)" = 2 ] || fail "no FAIL file for the crashed run"
python3 -c "
import json, glob
r = json.load(open(sorted(glob.glob('fo/faults.segv.J0.0.FAIL.*'))[0]))
assert r['success'] is False and 'signal 11' in r['error'] and r['failure_kind'] == 'signal', r
r = json.load(open(sorted(glob.glob('fo/faults.throws.J0.0.FAIL.*'))[0]))
assert r['success'] is False and 'poly-degree' in r['error'], r
" || fail "failure results"
grep -q "total: 8 processes, 4 failed" faults.log || fail "total line with failures"

# Bad input: one clear line, non-zero exit, nothing run.
rc=0; "$MILARUN" jobs cpu.json -d data --devices 1 -o bad --name nosuch > bad.log 2>&1 || rc=$?
[ $rc = 2 ] && grep -q 'no test named "nosuch"; available: toy_reg' bad.log || fail "unknown --name: $rc $(cat bad.log)"
[ ! -e bad ] || fail "outdir created for a refused run"
printf '{"a": {"experiment": "x",\n  oops}' > broken.json
rc=0; "$MILARUN" jobs broken.json -d data --devices 1 -o bad > bad.log 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "broken.json:2:" bad.log || fail "malformed profile: $(cat bad.log)"
rm -rf data/mnist
rc=0; "$MILARUN" jobs cpu.json -d data --devices 1 -o nodata --name vae -- --stop-at-count --max-count 100 > nodata.log 2>&1 || rc=$?
grep -q 'cpu.json: test "vae": --dataset milarun.datasets:mnist: dataset mnist is missing under data; make it: milarun dataset mnist -d data' nodata.log \
  || fail "missing dataset: $(cat nodata.log)"
[ $rc = 2 ] && [ ! -e nodata ] || fail "missing data should stop the suite before anything starts (exit 2): $rc"

# --min-duration reaches every run: each goes on past --max-count until 1 s was timed.
"$MILARUN" jobs faults.json -d data -o md --name good --devices 1 --min-duration 1 -- --stop-at-count --max-count 64 > md.log 2>&1 \
  || fail "jobs --min-duration: $(cat md.log)"
python3 -c "
import json, glob; t = json.load(open(glob.glob('md/faults.good.J0.0.*.json')[0]))['timings']['train']
assert t['min_duration'] == 1 and t['time'] >= 1 and t['count'] > 64, t
" || fail "jobs --min-duration not recorded or not honoured"
rc=0; "$MILARUN" jobs faults.json -d data -o md2 --min-duration -1 > md2.log 2>&1 || rc=$?
[ $rc = 2 ] && [ ! -e md2 ] || fail "negative --min-duration: rc $rc $(cat md2.log)"

# Without -o (and no MILARUN_OUTROOT) the results' JSON goes to stdout.
env -u MILARUN_OUTROOT "$MILARUN" jobs faults.json -d data --devices 1 --name good > stdout.json 2> stdout.err || fail "jobs without -o"
python3 -c "
import json; t = open('stdout.json').read(); r = json.loads(t)
assert r['name'] == 'faults.good' and r['success'], r
" || fail "stdout JSON: $(head -c 300 stdout.json)"
echo "jobs_cli_test: all checks passed"
