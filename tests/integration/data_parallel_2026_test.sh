#!/usr/bin/env bash
# The 2026 workloads data-parallel on this CPU machine, through the code path
# scaling uses (training/data_parallel_run.hpp): `milarun jobs --devices 2`
# runs each of gpt2, llama, vit and dit as a gpu-progression test (K = 1 and
# 2 ranks, Gloo over loopback, one CPU partition per rank). Rank 0's result
# holds train_0 and train_1 and the group's metrics; both ranks ran the same
# number of steps (one stop vote); each rank trained on its own data (their
# last losses differ, the weights being the same); the world of one rank
# trains plainly (no buckets).
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"

# The CPU 2026 profile's entries at test size, as gpu-progression tests.
python3 - "$SRC/profiles/cpu-2026.json" > tiny.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["gpt2-scaling"]["partition_scheme"]["type"] == "gpu-progression", p["gpt2-scaling"]
out = {}
for name, count in (("gpt2", 2560), ("llama", 2560), ("vit", 80), ("dit", 80)):
    t = p[name]
    t["arguments"].update({"--max-count": count, "--dist-timeout": 60, "--stop-at-count": True})
    t["partition_scheme"] = {"type": "gpu-progression"}
    out[name] = t
print(json.dumps(out))
PY
"$MILARUN" dataset --profile tiny.json -d "$work/data" > dataset.log 2>&1 || fail "dataset: $(tail -n 5 dataset.log)"
rc=0
"$MILARUN" jobs tiny.json -d "$work/data" -o out --devices 2 -- --sample-duration 0.01 > jobs.log 2>&1 || rc=$?
cat jobs.log
[ $rc = 0 ] || fail "jobs exited $rc; logs: $(tail -n 5 out/logs/*)"
grep -q "total: 12 processes, 0 failed" jobs.log || fail "total line"
python3 - out <<'PY' || fail "result contents"
import json, glob, sys
def one(pattern):
    files = glob.glob(sys.argv[1] + "/" + pattern)
    assert len(files) == 1, (pattern, files)
    return json.load(open(files[0]))
for name in ("gpt2", "llama", "vit", "dit"):
    alone = one(f"tiny.{name}.1.J0.2*.json")
    assert alone["success"], (name, alone.get("error"))
    assert "train" in alone["timings"] and "distributed" not in alone, (name, alone["timings"].keys())
    assert alone["metrics"]["world_size"] == 1 and "gradient_buckets" not in alone["metrics"], alone["metrics"]
    r0 = one(f"tiny.{name}.2.J0.2*.json")
    r1 = one(f"tiny.{name}.2.J0-rank1.2*.json")
    assert r0["success"] and r1["success"], (name, r0.get("error"), r1.get("error"))
    assert sorted(k for k in r0["timings"] if k.startswith("train")) == ["train_0", "train_1"], r0["timings"].keys()
    assert r0["distributed"]["world_size"] == 2 and r0["distributed"]["backend"] == "gloo", r0["distributed"]
    assert r1["sub_job"] is True and r1["distributed"]["rank"] == 1, r1.get("distributed")
    m0, m1 = r0["metrics"], r1["metrics"]
    assert m0["world_size"] == 2 and m0["gradient_buckets"] >= 1 and m0["stop_vote_reads"] >= 1, m0
    assert m0["steps"] == m1["steps"] >= 10, (name, m0["steps"], m1["steps"])
    assert m0["last_loss"] != m1["last_loss"], (name, "both ranks read the same data", m0["last_loss"])
    for k in ("train_0", "train_1"):
        assert r0["timings"][k]["count"] >= (2560 if name in ("gpt2", "llama") else 80), r0["timings"][k]
PY
"$MILARUN" summary out -o summary.json || fail "summary"
python3 -c "
import json; s = json.load(open('summary.json'))
for name in ('gpt2', 'llama', 'vit', 'dit'):
    g = s['tiny.%s.2' % name]
    assert g['train']['n'] == 2 and g['n'] == 1 and g['failures'] == 0, g
    assert s['tiny.%s.1' % name]['failures'] == 0, s['tiny.%s.1' % name]
" || fail "summary contents: $(cat summary.json)"
echo "data_parallel_2026_test: OK"
