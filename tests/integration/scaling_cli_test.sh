#!/usr/bin/env bash
# The scaling test end to end on this CPU machine: `milarun jobs` runs
# scaling.1 (one rank) and scaling.2 (two rank processes, one CPU partition
# each, Gloo over loopback); rank 0's result holds train_0 and train_1; the
# summary and report show scaling.1 and scaling.2; a rank that dies fails
# its group without hanging it.
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"

# The standard profile's scaling entry with a test-sized input (--image-size
# is ours: AlexNet at 64x64 keeps its 61 100 840 parameters).
python3 - "$SRC/profiles/standard.json" > tiny.json <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["scaling"]
assert t["partition_scheme"]["type"] == "gpu-progression" and t["arguments"]["--network"] == "alexnet", t
t["arguments"].update({"--batch-size": 2, "--image-size": 64, "--max-count": 12, "--dist-timeout": 60, "--stop-at-count": True})
print(json.dumps({"scaling": t}))
PY
rc=0
"$MILARUN" jobs tiny.json -d "$work/data" -o out --devices 2 -- --sample-duration 0.05 > jobs.log 2>&1 || rc=$?
cat jobs.log
[ $rc = 0 ] || fail "jobs exited $rc; logs: $(tail -n 5 out/logs/*)"
grep -q "tiny.scaling.2: 2 processes" jobs.log || fail "scaling.2 should be one wave of 2 processes"
grep -q "total: 3 processes, 0 failed" jobs.log || fail "total line"
python3 - out <<'PY' || fail "result contents"
import json, glob, sys
def one(pattern):
    files = glob.glob(sys.argv[1] + "/" + pattern)
    assert len(files) == 1, (pattern, files)
    return json.load(open(files[0]))
r1 = one("tiny.scaling.1.J0.2*.json")
assert r1["success"] and sorted(r1["timings"]) == ["program", "setup", "train_0"], r1["timings"].keys()
assert r1["distributed"]["world_size"] == 1
r2 = one("tiny.scaling.2.J0.2*.json")
assert r2["success"] and sorted(r2["timings"]) == ["program", "setup", "train_0", "train_1"], r2["timings"].keys()
assert r2["distributed"] == {**r2["distributed"], "rank": 0, "world_size": 2, "backend": "gloo",
                             "rendezvous": "torchrun"}, r2["distributed"]
for k in ("train_0", "train_1"):
    assert r2["timings"][k]["count"] >= 12 and len(r2["timings"][k]["rates"]) >= 3, r2["timings"][k]
assert r2["model"]["parameters"] == 61100840
sub = one("tiny.scaling.2.J0-rank1.2*.json")
assert sub["sub_job"] is True and sub["distributed"]["rank"] == 1, sub.get("distributed")
# Each rank on its own CPU partition.
assert r2["isolation"]["cpus_observed"] != sub["isolation"]["cpus_observed"], (r2["isolation"], sub["isolation"])
PY
"$MILARUN" summary out -o summary.json || fail "summary"
python3 -c "
import json; s = json.load(open('summary.json'))
assert sorted(s) == ['tiny.scaling.1', 'tiny.scaling.2'], sorted(s)
assert s['tiny.scaling.1']['train']['n'] == 1 and s['tiny.scaling.1']['n'] == 1, s['tiny.scaling.1']
assert s['tiny.scaling.2']['train']['n'] == 2 and s['tiny.scaling.2']['n'] == 1, s['tiny.scaling.2']
assert s['tiny.scaling.2']['failures'] == 0
" || fail "summary contents: $(cat summary.json)"
"$MILARUN" report out > report.txt || fail "report"
grep -q "tiny.scaling.1" report.txt && grep -q "tiny.scaling.2" report.txt || fail "report: $(cat report.txt)"

# Rank 1 of scaling.2 dies at start while rank 0 waits for it (default
# --dist-timeout: 600 s). jobs stops rank 0 10 s later; the group's result
# (rank 0's) gives rank 1's failure kind and names it; rank 1's file is a
# sub_job; the summary counts one failed group of kind signal. (The test
# names come from the profile's file name: dies.json -> dies.scaling.K.)
python3 - tiny.json > dies.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["scaling"]["exec_prefix"] = ["sh", "-c", '[ "$RANK" = 1 ] && kill -KILL $$; exec "$@"', "sh"]
del p["scaling"]["arguments"]["--dist-timeout"]
print(json.dumps(p))
PY
rc=0; start=$(date +%s)
"$MILARUN" jobs dies.json -d "$work/data" -o dies --devices 2 > dies.log 2>&1 || rc=$?
[ $rc = 1 ] || fail "a dead rank should fail the jobs run, got $rc: $(cat dies.log)"
[ $(( $(date +%s) - start )) -lt 300 ] || fail "the group hung after its rank died: $(cat dies.log)"
python3 - dies <<'PY' || fail "dead rank results: $(cat dies.log)"
import json, glob, sys
d = sys.argv[1]
(r0,) = [json.load(open(f)) for f in glob.glob(d + "/dies.scaling.2.J0.FAIL.*.json")]
assert r0["failure_kind"] == "signal" and r0["failed_group_member"] == "0-rank1", r0
assert "J0-rank1 of its group failed first (killed by signal 9)" in r0["error"], r0["error"]
(r1,) = [json.load(open(f)) for f in glob.glob(d + "/dies.scaling.2.J0-rank1.FAIL.*.json")]
assert r1["sub_job"] is True and r1["failure_kind"] == "signal", r1
assert glob.glob(d + "/dies.scaling.1.J0.2*.json"), "scaling.1 (rank 0 only) should succeed"
PY
"$MILARUN" summary dies -o dies.sum.json || fail "summary of the failed run"
python3 -c "
import json; s = json.load(open('dies.sum.json'))
g = s['dies.scaling.2']
assert g['n'] == 1 and g['failures'] == 1 and g['failure_kinds'] == {'signal': 1}, g
assert s['dies.scaling.1']['failures'] == 0
" || fail "failed group summary: $(cat dies.sum.json)"
echo "scaling_cli_test: OK"
