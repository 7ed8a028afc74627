#!/usr/bin/env bash
# Runs that misbehave and suites that are stopped: every scenario ends with
# each run's result on disk exactly once (docs/reliability.md, one block per row).
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d)
mnt=""
cleanup() {
  pkill -KILL -f "$work/" 2>/dev/null || true
  [ -n "$mnt" ] && umount "$mnt" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"
export TMPDIR="$work/tmp"; mkdir -p "$TMPDIR"
marker="$work"  # in every child's command line (its -o), to find leftovers

# count DIR NAME-GLOB: number of result files
count() { ls "$1"/$2 2>/dev/null | wc -l; }
kind() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['failure_kind'])" "$1"; }
leftovers() { pgrep -f "$marker" | grep -v "^$$\$" || true; }
# Conditions, polled (cap 60 s, reached only when the condition never holds):
# at least N runs of the suite are running; none is left (jobs included).
# Runs: the processes of `milarun-torch run` (and a prefix in front of one), not jobs itself.
runs() { pgrep -f "milarun-torch run .*$marker" || true; }
runs_started() { for _ in $(seq 600); do [ "$(runs | wc -l)" -ge "$1" ] && return 0; sleep 0.1; done; return 1; }
none_left() { for _ in $(seq 600); do [ -z "$(leftovers)" ] && return 0; sleep 0.1; done; return 1; }
# A suite where every run is unique per (test, job id), so duplicates show.
complete_once() {  # DIR EXPECTED: every result name appears once, EXPECTED files in all
  python3 - "$1" "$2" <<'PY'
import glob, json, os, re, sys, collections
d, want = sys.argv[1], int(sys.argv[2])
files = [f for f in glob.glob(os.path.join(d, "*.json"))]
keys = collections.Counter(re.sub(r"(\.FAIL)?\.\d{8}-\d{6}-\d{6}\.json$", "", os.path.basename(f)) for f in files)
dups = [k for k, n in keys.items() if n > 1]
assert not dups, f"duplicates: {dups}"
assert len(files) == want, f"{len(files)} results, expected {want}: {sorted(keys)}"
bad = [f for f in files if not json.load(open(f))["success"]]
assert not bad, f"failed results left: {bad}"
PY
}

# Two tests in two waves; the first runs long unless `-- --stop-at-count --max-count N` shortens it.
cat > long.json <<JSON
{"*": {"partition_scheme": {"type": "per-gpu"}},
 "first": {"experiment": "polynome", "arguments": {"--stop-at-count": true, "--max-count": 400000000}},
 "second": {"experiment": "polynome", "arguments": {"--stop-at-count": true, "--max-count": 20000}}}
JSON

# --- hang: the profile's timeout kills the process group, recorded as timeout
cat > hang.json <<JSON
{"hang": {"experiment": "polynome", "timeout": 2, "exec_prefix": ["sh", "-c", "sleep 300 # $marker"]},
 "slow": {"experiment": "polynome", "arguments": {"--stop-at-count": true, "--max-count": 400000000}}}
JSON
rc=0; "$MILARUN" jobs hang.json -d "$work/data" --devices 1 -o hang --name hang > hang.log 2>&1 || rc=$?
[ $rc = 1 ] || fail "hang: exit $rc: $(cat hang.log)"
[ "$(kind hang/hang.hang.J0.0.FAIL.*.json)" = timeout ] || fail "hang: not recorded as timeout"
none_left || fail "hang: the sleeping process survived"
# --max-duration overrides the profile's timeout
rc=0; "$MILARUN" jobs hang.json -d "$work/data" --devices 1 -o slow --name slow --max-duration 1.5 > slow.log 2>&1 || rc=$?
[ $rc = 1 ] && [ "$(kind slow/hang.slow.J0.0.FAIL.*.json)" = timeout ] || fail "--max-duration: $(cat slow.log)"
grep -q "timeout after 1.5 s" slow.log || fail "--max-duration: the log does not say the limit"

# --- NaN: a diverging run stops and fails as nonfinite_loss
cat > nan.json <<JSON
{"nan": {"experiment": "polynome", "arguments": {"--poly-degree": 60, "--lr": 10, "--stop-at-count": true, "--max-count": 400000000}}}
JSON
rc=0; "$MILARUN" jobs nan.json -d "$work/data" --devices 1 -o nan -- --sample-duration 0.05 > nan.log 2>&1 || rc=$?
[ $rc = 1 ] && [ "$(kind nan/nan.nan.J0.0.FAIL.*.json)" = nonfinite_loss ] || fail "NaN: $(cat nan.log)"

# --- SIGINT / SIGTERM: children stopped, interrupted runs recorded, resume completes the set
for sig in INT TERM; do
  out=stop-$sig
  "$MILARUN" jobs long.json -d "$work/data" -o $out --devices 2 > $out.log 2>&1 & pid=$!
  runs_started 2 || fail "SIG$sig: the two runs of the first wave did not start: $(cat $out.log)"
  kill -$sig $pid
  rc=0; wait $pid || rc=$?
  want=$((128 + $(kill -l $sig)))
  [ $rc = $want ] || fail "SIG$sig: exit $rc, expected $want: $(cat $out.log)"
  none_left || fail "SIG$sig: processes of the suite remain: $(leftovers)"
  [ "$(count $out 'long.first.J*.FAIL.*.json')" = 2 ] || fail "SIG$sig: interrupted runs not recorded"
  for f in $out/long.first.J*.FAIL.*.json; do [ "$(kind $f)" = interrupted ] || fail "SIG$sig: kind $(kind $f)"; done
  [ "$(count $out 'long.second.*')" = 0 ] || fail "SIG$sig: the next test started after the signal"
  grep -q -- "--resume" $out.log || fail "SIG$sig: no hint to resume"
  # Resume (short runs): the interrupted files are replaced, nothing is duplicated.
  "$MILARUN" jobs long.json -d "$work/data" -o $out --devices 2 --resume -- --stop-at-count --max-count 20000 > $out.resume.log 2>&1 \
    || fail "SIG$sig resume: $(cat $out.resume.log)"
  grep -q "2 run(s) that failed for a reason you can fix run again (interrupted 2" $out.resume.log || fail "SIG$sig resume: $(cat $out.resume.log)"
  complete_once $out 4 || fail "SIG$sig: incomplete after resume"
done

# --- kill -9 of the orchestrator: its children die with it; resume completes the set
"$MILARUN" jobs long.json -d "$work/data" -o k9 --devices 2 > k9.log 2>&1 & pid=$!
runs_started 2 || fail "kill -9: the two runs of the first wave did not start: $(cat k9.log)"
kill -9 $pid; wait $pid 2>/dev/null || true
none_left || fail "kill -9: runs outlived the orchestrator: $(leftovers)"
"$MILARUN" jobs long.json -d "$work/data" -o k9 --devices 2 --resume -- --stop-at-count --max-count 20000 > k9.resume.log 2>&1 \
  || fail "kill -9 resume: $(cat k9.resume.log)"
complete_once k9 4 || fail "kill -9: incomplete after resume"
# A second resume has nothing left to do.
"$MILARUN" jobs long.json -d "$work/data" -o k9 --devices 2 --resume -- --stop-at-count --max-count 20000 > k9.again.log 2>&1
grep -q "4 run(s) already have a result" k9.again.log && complete_once k9 4 || fail "resume of a complete set"

# --- kill -9 with a prefix that forks (the run is jobs' grandchild, out of reach of the
# death signal): the suite lifeline ends it with its prefix; the lock is free again
python3 - <<'PY'
import json
p = json.load(open("long.json"))
for t in ("first", "second"):
    p[t]["exec_prefix"] = ["sh", "-c", '"$@"; exit $?', "sh"]
json.dump(p, open("fork.json", "w"))
PY
"$MILARUN" jobs fork.json -d "$work/data" -o k9f --devices 2 > k9f.log 2>&1 & pid=$!
runs_started 4 || fail "kill -9, forking prefix: the runs and their prefixes did not start: $(cat k9f.log)"
rc=0; "$MILARUN" jobs fork.json -d "$work/data" -o k9f --devices 2 --resume > k9f.busy.log 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "is in use by another milarun jobs" k9f.busy.log || fail "a --resume during the suite: rc $rc $(cat k9f.busy.log)"
kill -9 $pid; wait $pid 2>/dev/null || true
none_left || fail "kill -9, forking prefix: runs outlived the orchestrator: $(leftovers)"
grep -q "the suite (milarun jobs) ended" k9f/logs/*.log || fail "kill -9, forking prefix: no run said why it stopped"
"$MILARUN" jobs fork.json -d "$work/data" -o k9f --devices 2 --resume -- --stop-at-count --max-count 20000 > k9f.resume.log 2>&1 \
  || fail "kill -9, forking prefix, resume: $(cat k9f.resume.log)"
complete_once k9f 4 || fail "kill -9, forking prefix: incomplete after resume"

# --- disk full on the output directory (a 32 MiB tmpfs; needs root and mount)
mnt="$work/small"; mkdir -p "$mnt"
if mount -t tmpfs -o size=32m tmpfs "$mnt" 2>/dev/null; then
  # (a) checked before each test: nothing starts, resume finishes once there is room
  head -c 30m /dev/zero > "$mnt/filler"  # 2 MiB left, under the 16 MiB minimum
  rc=0; "$MILARUN" jobs long.json -d "$work/data" --devices 1 -o "$mnt/out" -- --stop-at-count --max-count 20000 > full.log 2>&1 || rc=$?
  [ $rc = 1 ] && grep -q "MiB free" full.log && grep -q -- "--resume" full.log || fail "disk full (a): $rc $(cat full.log)"
  rm "$mnt/filler"
  "$MILARUN" jobs long.json -d "$work/data" --devices 1 -o "$mnt/out" --resume -- --stop-at-count --max-count 20000 > full.resume.log 2>&1 \
    || fail "disk full (a) resume: $(cat full.resume.log)"
  complete_once "$mnt/out" 2 || fail "disk full (a): incomplete after resume"
  # (b) full while a run writes: the result is parked in $TMPDIR, the suite stops, resume moves it back
  rm -rf "$mnt/out"; mkdir -p "$mnt/out/logs"
  fill=$(( $(df --output=avail -k "$mnt" | tail -1) - 2 ))
  head -c ${fill}k /dev/zero > "$mnt/filler" 2>/dev/null || true
  rc=0; "$MILARUN" jobs long.json -d "$work/data" --devices 1 -o "$mnt/out" --min-free-mb 0 -- --stop-at-count --max-count 20000 > part.log 2>&1 || rc=$?
  [ $rc = 1 ] && grep -q "kept in" part.log || fail "disk full (b): $rc $(cat part.log)"
  [ "$(ls "$TMPDIR"/milarun-unsaved/*/*.json | wc -l)" -ge 1 ] || fail "disk full (b): nothing parked"
  rm "$mnt/filler"
  "$MILARUN" jobs long.json -d "$work/data" --devices 1 -o "$mnt/out" --resume -- --stop-at-count --max-count 20000 > part.resume.log 2>&1 \
    || fail "disk full (b) resume: $(cat part.resume.log)"
  grep -q "moved back" part.resume.log || fail "disk full (b): parked results not restored"
  complete_once "$mnt/out" 2 || fail "disk full (b): incomplete after resume"
  umount "$mnt"; mnt=""
else
  echo "note: cannot mount a tmpfs here (not root?): disk-full scenario skipped"
fi

# --- corrupt data: a truncated MNIST file fails that run as bad_input, naming the file
"$MILARUN" dataset mnist -d "$work/data" --scale 0.01 > /dev/null
truncate -s 100 data/mnist/MNIST/raw/train-images-idx3-ubyte
cat > corrupt.json <<JSON
{"vae": {"experiment": "vae", "arguments": {"--dataset": "milarun.datasets:mnist", "--stop-at-count": true, "--max-count": 2000}},
 "ok": {"experiment": "polynome", "arguments": {"--stop-at-count": true, "--max-count": 20000}}}
JSON
rc=0; "$MILARUN" jobs corrupt.json -d "$work/data" --devices 1 -o corrupt > corrupt.log 2>&1 || rc=$?
[ $rc = 1 ] || fail "corrupt data: exit $rc"
f=$(ls corrupt/corrupt.vae.J0.0.FAIL.*.json) || fail "corrupt data: no FAIL file"
[ "$(kind $f)" = bad_input ] || fail "corrupt data: kind $(kind $f)"
grep -q "train-images" $f || fail "corrupt data: the error does not name the file"
[ "$(count corrupt 'corrupt.ok.J0.0.2*.json')" = 1 ] || fail "corrupt data: the other test did not run"
# report shows the failure kinds next to the failure rate
"$MILARUN" report corrupt > corrupt.report 2>&1 || true
grep -q "by kind: bad_input 1" corrupt.report || fail "report: no failure kinds: $(cat corrupt.report)"

echo "reliability_cli_test: passed"
