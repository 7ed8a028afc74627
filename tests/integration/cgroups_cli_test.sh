#!/usr/bin/env bash
# milarun cgroups setup/status/teardown on the real hierarchies (CI runs as
# root with cgroup v1 cpuset+memory), under a unique parent group, and the
# isolation a `milarun run` records. Skips (exit 0, saying why) without root
# or mounted cgroups.
set -euo pipefail
MILARUN=$1; SRC=$2
fail() { echo "FAIL: $*"; exit 1; }
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root"; exit 0; fi
if ! grep -qE ' cgroup .*cpuset| cgroup2 ' /proc/mounts; then echo "SKIP: no cgroups mounted"; exit 0; fi
work=$(mktemp -d)
parent="milabench-clitest-$$"; marker="$work/marker.json"
cleanup() { "$MILARUN" cgroups teardown --marker "$marker" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

if ! "$MILARUN" cgroups setup --devices 2 --memory-mb 200 --parent "$parent" --marker "$marker" > "$work/setup" 2>&1; then
  grep -q "no usable cgroups" "$work/setup" && { echo "SKIP: $(cat "$work/setup")"; exit 0; }
  cat "$work/setup"; fail "setup"
fi
[ "$(grep -c created "$work/setup")" = 2 ] || { cat "$work/setup"; fail "setup did not create 2 groups"; }
"$MILARUN" cgroups status --parent "$parent" --marker "$marker" > "$work/status"
grep -q "$parent/student1 .*memory 200 MiB.*made by milarun" "$work/status" || { cat "$work/status"; fail "status"; }

# A run whose launcher chose the group records it; cpus_observed shows it held.
root=$(awk '$3=="cgroup" && $4 ~ /cpuset/ {print $2; exit}' /proc/mounts)
mroot=$(awk '$3=="cgroup" && $4 ~ /memory/ {print $2; exit}' /proc/mounts)
if [ -n "$root" ] && [ -n "$mroot" ]; then
  cpus=$(cat "$root/$parent/student1/cpuset.cpus")
  iso="{\"kind\":\"cgroup\",\"cgroup\":\"cpuset,memory:$parent/student1\",\"cpu_list\":\"$cpus\",\"memory_limit_mb\":200}"
  sh -c "echo \$\$ > $root/$parent/student1/cgroup.procs; echo \$\$ > $mroot/$parent/student1/cgroup.procs; \
         MILARUN_ISOLATION='$iso' exec \"$MILARUN\" run polynome -o $work/r.json -- --stop-at-count --max-count 2000" 2> "$work/run.log" \
    || { cat "$work/run.log"; fail "run in group"; }
  python3 - "$work/r.json" "$cpus" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
iso = r["isolation"]
assert iso["kind"] == "cgroup" and iso["memory_limit_mb"] == 200, iso
lo, _, hi = sys.argv[2].partition("-")
want = list(range(int(lo), int(hi or lo) + 1))
assert iso["cpus_observed"] == want, (iso, want)
assert "monitor" in r and r["monitor"]["samples"] >= 2 and r["monitor"]["process"]["rss_peak_mb"] > 0, r.get("monitor")
assert "MILARUN_ISOLATION" not in r["environ"]
PY
fi

"$MILARUN" cgroups teardown --marker "$marker" > "$work/down"
grep -q "removed" "$work/down" || fail "teardown"
[ ! -e "$marker" ] || fail "marker left after a full teardown"
"$MILARUN" cgroups status --parent "$parent" --marker "$marker" | grep -q "no student groups" || fail "groups left"
set +e
"$MILARUN" cgroups frobnicate > /dev/null 2>&1; rc=$?
set -e
[ $rc != 0 ] || fail "unknown action accepted"
echo OK
