#!/usr/bin/env bash
# The image's entry point (scripts/docker-entry.sh) outside a container:
# what it hands the command line to, and, as root with cgroup v1 cpuset+memory,
# the student cgroups it sets up in a private mount namespace (unshare -m) made
# to look like a container's: hierarchies read-only with and without
# CAP_SYS_ADMIN, and not mounted at all. Groups are made under a unique parent
# (MILABENCH_CGROUP_ARGS) and removed at the end. The cgroup part skips
# (saying why) without root or mounted v1 hierarchies.
set -euo pipefail
MILARUN=$1; SRC=$2
ENTRY=$SRC/scripts/docker-entry.sh
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
markers=()
cleanup() {
  for m in "${markers[@]}"; do "$MILARUN" cgroups teardown --marker "$m" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
export MILARUN

# The Dockerfiles name files that exist: what they COPY from the tree and their entry point.
for df in "$SRC/Dockerfile" "$SRC/Dockerfile.gpu"; do
  awk '$1 == "COPY" && $2 !~ /^--from/ {for (i = 2; i < NF; ++i) print $i}' "$df" | while read -r src; do
    [ "$src" = . ] || [ -e "$SRC/$src" ] || fail "$(basename "$df") copies $src, which is not in the tree"
  done
  entry=$(sed -n 's|^ENTRYPOINT \["/opt/milabench/\(.*\)"\]$|\1|p' "$df")
  [ -n "$entry" ] && [ -x "$SRC/$entry" ] || fail "$(basename "$df"): entry point '$entry' is not an executable of the tree"
done

# Hand-over: no command is bash; milarun and its subcommands go to milarun; the rest runs as is.
off() { MILABENCH_CGROUPS=off "$ENTRY" "$@"; }
off --version | grep -q '^milarun ' || fail "--version was not handed to milarun"
off milarun --version | grep -q '^milarun ' || fail "milarun --version"
off list | grep -q polynome || fail "a milarun subcommand (list) was not handed to milarun"
[ "$(off sh -c 'echo passed $0' through)" = "passed through" ] || fail "another command was not run as given"
[ "$(echo 'echo from bash' | off)" = "from bash" ] || fail "no command did not start bash"
set +e
off sh -c 'exit 7'; rc=$?
set -e
[ $rc = 7 ] || fail "the command's exit status was not kept ($rc)"

if [ "$(id -u)" != 0 ]; then echo "SKIP (cgroup part): needs root"; echo OK; exit 0; fi
cpuset=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpuset(,|$)/ {print $2; exit}' /proc/mounts)
memory=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
if [ -z "$cpuset" ] || [ -z "$memory" ]; then echo "SKIP (cgroup part): no v1 cpuset+memory"; echo OK; exit 0; fi
command -v unshare >/dev/null && command -v setpriv >/dev/null || { echo "SKIP (cgroup part): no unshare/setpriv"; echo OK; exit 0; }
if ! unshare -m --propagation private sh -c 'mount -o remount,bind,ro "$1" && mount -o remount,bind,rw "$1"' _ "$cpuset"; then
  echo "SKIP (cgroup part): cannot remount the cpuset hierarchy in a private mount namespace"; echo OK; exit 0
fi

# --no-cgexec in the command: no set-up, no message.
markers+=("$work/marker-none.json")
MILABENCH_CGROUP_ARGS="--parent milabench-entrytest-$$-none --marker $work/marker-none.json --devices 2" \
  "$ENTRY" sh -c 'echo ran' --no-cgexec > out 2> err
[ "$(cat out)" = ran ] && [ ! -s err ] && [ ! -e "$work/marker-none.json" ] || fail "--no-cgexec: $(cat out err)"

# Two polynome runs in parallel, each in its student group under the test's parent.
profile() {
  python3 - "$SRC/profiles/cpu.json" "$1" > "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
q = {"*": p["*"], "toy_reg": p["toy_reg"]}
q["*"]["partition_scheme"]["cgroup"] = "cpuset,memory:" + sys.argv[2] + "/student{CUDA_VISIBLE_DEVICES}"
q["toy_reg"]["arguments"]["--max-count"] = 200000
print(json.dumps(q))
PY
}
isolation_kinds() {
  python3 -c '
import json, sys
print(" ".join(sorted(json.load(open(f))["isolation"]["kind"] for f in sys.argv[1:])))' "$@"
}

# In a private mount namespace: the v1 hierarchies read-only as a container
# gets them (a bind remount: only this namespace sees it), then the entry
# point runs CMD (with ENTRY_ARGS) under PRIV (a capability-dropping prefix).
in_container() {  # NAME PRIV... -- CMD...
  local name=$1; shift
  local priv=()
  while [ "$1" != -- ]; do priv+=("$1"); shift; done
  shift
  markers+=("$work/marker-$name.json")
  MILABENCH_CGROUP_ARGS="--parent milabench-entrytest-$$-$name --marker $work/marker-$name.json --devices 2 --memory-mb 300" \
    unshare -m --propagation private bash -c '
      mount -o remount,bind,ro "$1" && mount -o remount,bind,ro "$2" || exit 90
      shift 2; exec "$@"' _ "$cpuset" "$memory" "${priv[@]}" "$ENTRY" "$@"
}

# 1. With CAP_SYS_ADMIN (--cap-add=SYS_ADMIN): made writable, groups set up, the runs join them.
profile "milabench-entrytest-$$-cap" cap.json
in_container cap -- milarun jobs cap.json -d data -o out-cap --devices 2 > cap.out 2> cap.err || { cat cap.out cap.err; fail "jobs with the capability"; }
[ "$(grep -c created cap.err)" = 2 ] || { cat cap.err; fail "the entry point did not set up 2 groups"; }
grep -q "no student cgroups" cap.err && fail "a warning with the capability: $(cat cap.err)"
[ "$(isolation_kinds out-cap/*.json)" = "cgroup cgroup" ] || fail "runs did not join their groups: $(isolation_kinds out-cap/*.json)"
python3 -c '
import json, sys
for f in sys.argv[1:]:
    iso = json.load(open(f))["isolation"]
    assert iso["memory_limit_mb"] == 300 and iso["cpus_observed"] == iso["cpus"], iso' out-cap/*.json || fail "group limits"
[ -d "$cpuset/milabench-entrytest-$$-cap/student1" ] || fail "no group in the host's hierarchy"
ro=$(awk -v d="$cpuset" '$2 == d {print $4}' /proc/mounts)
case ",$ro," in *,ro,*) fail "the host's cpuset mount became read-only" ;; esac

# 2. Without it (plain docker run): one line saying so and naming --no-cgexec; the command still runs, pinned.
profile "milabench-entrytest-$$-nocap" nocap.json
in_container nocap setpriv --bounding-set=-sys_admin -- milarun jobs nocap.json -d data -o out-nocap --devices 2 \
  > nocap.out 2> nocap.err || { cat nocap.out nocap.err; fail "jobs without the capability"; }
[ "$(grep -c "^milabench-entry:" nocap.err)" = 1 ] || { cat nocap.err; fail "not exactly one line from the entry point"; }
grep "^milabench-entry:" nocap.err | grep -q "read-only.*CAP_SYS_ADMIN.*--no-cgexec" || fail "the line: $(cat nocap.err)"
[ "$(isolation_kinds out-nocap/*.json)" = "affinity affinity" ] || fail "runs without groups: $(isolation_kinds out-nocap/*.json)"
[ ! -e "$work/marker-nocap.json" ] && [ ! -d "$cpuset/milabench-entrytest-$$-nocap" ] || fail "groups made without the capability"

# 3. No hierarchy mounted: the entry point mounts cpuset and memory, as the original's image did.
markers+=("$work/marker-bare.json")
MILABENCH_CGROUP_ARGS="--parent milabench-entrytest-$$-bare --marker $work/marker-bare.json --devices 2 --memory-mb 300" \
  unshare -m --propagation private bash -c 'umount "$1" "$2" || exit 90; shift 2; exec "$@"' _ "$cpuset" "$memory" \
  "$ENTRY" sh -c 'grep -cE " cgroup .*(cpuset|memory)" /proc/mounts' > bare.out 2> bare.err || { cat bare.err; fail "bare"; }
[ "$(cat bare.out)" = 2 ] && [ "$(grep -c created bare.err)" = 2 ] || { cat bare.out bare.err; fail "not mounted and set up"; }
echo OK
