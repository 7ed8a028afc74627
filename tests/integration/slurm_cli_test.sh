#!/usr/bin/env bash
# `milarun jobs --launcher slurm` against a real Slurm: this script starts a
# one-node cluster (munged with a generated key, slurmctld, slurmd; 2 CPUs,
# state in a scratch folder), runs the scaling test inside `salloc` — scaling.1
# as one srun task, scaling.2 as two tasks meeting through the Slurm
# rendezvous variables — plus a per-gpu test as one task per device, and
# summarises the results. Every daemon it started is stopped on exit.
# Skips (exit 77) only when not root.
set -euo pipefail
MILARUN=$1; SRC=$2
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: slurm_cli_test starts munged, slurmctld and slurmd as SlurmUser=root: run it as root"
  exit 77
fi
fail() { echo "FAIL: $*"; for f in "$work"/*.log; do echo "== $f"; tail -n 20 "$f"; done; exit 1; }
for p in munged slurmctld slurmd salloc srun sinfo; do
  command -v $p > /dev/null || { echo "FAIL: $p not found: run scripts/install-deps.sh (slurm-wlm, munge)"; exit 1; }
done
work=$(mktemp -d)
stop_daemons() {
  for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munged.pid"; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2> /dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2> /dev/null || true
  done
  rm -rf "$work"
}
trap stop_daemons EXIT
cd "$work"
host=$(hostname -s)
mkdir -p state spool munge
chmod 700 munge

# munge: a fresh key and socket of our own, so a system munged is left alone.
head -c 1024 /dev/urandom > munge/munge.key
chmod 400 munge/munge.key
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.sock" \
  --pid-file="$work/munged.pid" --log-file="$work/munged.log" --seed-file="$work/munge/munged.seed" \
  || fail "munged did not start"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'; }
cat > slurm.conf <<CONF
ClusterName=milabench-ci
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$(port)
SlurmdPort=$(port)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
NodeName=$host CPUs=2 State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
for _ in $(seq 60); do
  [ "$(sinfo -h -o %t 2> /dev/null)" = idle ] && break
  sleep 0.5
done
[ "$(sinfo -h -o %t)" = idle ] || fail "node not idle: $(sinfo 2>&1)"

# Outside an allocation --launcher slurm refuses with one line.
rc=0; "$MILARUN" jobs "$SRC/profiles/cpu.json" -d data -o x --launcher slurm > outside.log 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "inside an allocation" outside.log || fail "outside an allocation: rc $rc $(cat outside.log)"

python3 - "$SRC/profiles/standard.json" > tiny.json <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["scaling"]
t["arguments"].update({"--batch-size": 2, "--image-size": 64, "--max-count": 12, "--dist-timeout": 60, "--stop-at-count": True})
poly = {"experiment": "milarun.models.polynome:main", "arguments": {"--max-count": 3000000, "--stop-at-count": True},
        "partition_scheme": {"type": "per-gpu"}}
print(json.dumps({"poly": poly, "scaling": t}))
PY
rc=0
timeout 300 salloc -N1 -n2 "$MILARUN" jobs tiny.json -d "$work/data" -o out --devices 2 --launcher slurm \
  -- --sample-duration 0.05 > jobs.log 2>&1 || rc=$?
cat jobs.log
[ $rc = 0 ] || fail "salloc milarun jobs --launcher slurm exited $rc; $(tail -n 20 out/logs/* 2>/dev/null)"
grep -q "total: 3 processes, 0 failed" jobs.log || fail "expected 3 srun steps"
python3 - out <<'PY' || fail "result contents"
import json, glob, sys
def one(pattern):
    files = glob.glob(sys.argv[1] + "/" + pattern)
    assert len(files) == 1, (pattern, files)
    return json.load(open(files[0]))
for task in (0, 1):
    r = one(f"tiny.poly.J0.{task}.2*.json")
    assert r["success"] and r["environ"]["SLURM_PROCID"] == str(task), r["environ"]
    assert r["device"] == task, r["device"]  # MILARUN_CPU_PARTITION = SLURM_LOCALID (an int, as the original)
r2 = one("tiny.scaling.2.J0.2*.json")
assert sorted(r2["timings"]) == ["program", "setup", "train_0", "train_1"], r2["timings"].keys()
d = r2["distributed"]
assert d["world_size"] == 2 and d["rank"] == 0 and d["rendezvous"] == "slurm" and d["backend"] == "gloo", d
assert one("tiny.scaling.2.J0-rank1.2*.json")["sub_job"] is True
assert one("tiny.scaling.1.J0.2*.json")["distributed"]["world_size"] == 1
PY
"$MILARUN" summary out -o summary.json || fail "summary"
python3 -c "
import json; s = json.load(open('summary.json'))
assert sorted(s) == ['tiny.poly', 'tiny.scaling.1', 'tiny.scaling.2'], sorted(s)
assert s['tiny.scaling.2']['train']['n'] == 2 and s['tiny.scaling.2']['failures'] == 0, s['tiny.scaling.2']
assert s['tiny.poly']['n'] == 2 and s['tiny.poly']['failures'] == 0, s['tiny.poly']
" || fail "summary contents: $(cat summary.json)"
"$MILARUN" report out | grep -q "tiny.scaling.2" || fail "report"
echo "slurm_cli_test: OK"
