#!/usr/bin/env bash
# Builds the image (Dockerfile) and runs a small suite in it three ways
# (docs/docker.md, "Checked here"):
#   1. --cap-add=SYS_ADMIN --security-opt=apparmor:unconfined: the entry point
#      sets up the student groups and every run joins its group;
#   2. user mode, `milarun jobs ... --no-cgexec`: no set-up, no message, runs pinned;
#   3. neither: the entry point says in one line why there are no groups and
#      that --no-cgexec is the way; the runs are pinned.
# The suite: toy_reg, vae (its mnist made in the /data volume) and cart from
# profiles/cpu.json with counts of a few seconds, on 2 devices. Prints the
# build time and the image's size; exit status 0 when every check passed.
# Env: ENGINE (docker or podman; default docker when `docker info` works, else
#      podman), IMAGE (default my_docker), DOCKER_CHECK_WORK (default a temp
#      folder), DOCKER_CHECK_BUILD=0 (reuse the built image).
# Needs the base image (debian:bookworm) locally or from a registry;
# scripts/docker-base.sh makes one with debootstrap where none is reachable.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${ENGINE:-}" ]; then
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then ENGINE=docker; else ENGINE=podman; fi
fi
command -v "$ENGINE" >/dev/null || { echo "docker-check: no container engine ($ENGINE) on PATH" >&2; exit 1; }
image=${IMAGE:-my_docker}
work=${DOCKER_CHECK_WORK:-$(mktemp -d)}
mkdir -p "$work"
status=0
fail() { echo "docker-check: FAIL: $*"; status=1; }

if [ "${DOCKER_CHECK_BUILD:-1}" != 0 ]; then
  commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD 2>/dev/null || commit=$commit-dirty
  t0=$(date +%s)
  "$ENGINE" build --network host --build-arg MILABENCH_COMMIT="$commit" -t "$image" -f Dockerfile . \
    > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; echo "docker-check: build failed ($work/build.log)"; exit 1; }
  echo "docker-check: built $image with $ENGINE in $(($(date +%s) - t0)) s ($(nproc) CPUs; log: $work/build.log)"
fi
size=$("$ENGINE" image inspect --format '{{.Size}}' "$image")
echo "docker-check: image $image: $((size / 1000000)) MB"
"$ENGINE" run --rm --network none "$image" milarun --version

python3 - profiles/cpu.json > "$work/small.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
counts = {"toy_reg": 2000000, "vae": 6000, "cart": 5000}
q = {"*": p["*"]}
for k, n in counts.items():
    q[k] = p[k]
    q[k]["arguments"]["--max-count"] = n
print(json.dumps(q, indent=1))
PY
mkdir -p "$work/data"
run() {  # NAME [engine run options] -- [command]
  local name=$1; shift
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  rm -rf "${work:?}/$name" && mkdir -p "$work/$name"
  "$ENGINE" run --rm --network none "${opts[@]}" -v "$work/data:/data" -v "$work/$name:/results" \
    -v "$work/small.json:/small.json:ro" "$image" "$@" > "$work/$name.out" 2> "$work/$name.err"
}
kinds() {
  python3 -c '
import glob, json, sys
print(" ".join(sorted(json.load(open(f))["isolation"]["kind"] for f in glob.glob(sys.argv[1] + "/run/*.json"))))' "$1"
}
want() { [ "$(kinds "$work/$1")" = "$2 $2 $2 $2 $2 $2" ] || fail "$1: isolation kinds '$(kinds "$work/$1")', want 6 x $2"; }

run data -e MILABENCH_CGROUPS=off -- milarun dataset mnist --scale 0.02 || fail "dataset: $(cat "$work/data.err")"

# 1. With the capability: groups set up by the entry point; the runs join them.
run cgroups --cap-add=SYS_ADMIN --security-opt=apparmor:unconfined -- \
  milarun jobs /small.json -o /results/run --devices 2 || fail "jobs with cgroups: $(tail -5 "$work/cgroups.err")"
grep -c created "$work/cgroups.err" | grep -qx 2 || fail "the entry point did not set up 2 groups: $(cat "$work/cgroups.err")"
want cgroups cgroup

# 2. User mode: --no-cgexec.
run nocgexec -- milarun jobs /small.json -o /results/run --devices 2 --no-cgexec || fail "jobs --no-cgexec"
grep -q milabench-entry "$work/nocgexec.err" && fail "a message from the entry point with --no-cgexec"
want nocgexec affinity

# 3. Neither: one line from the entry point, runs pinned.
run plain -- milarun jobs /small.json -o /results/run --devices 2 || fail "jobs without the capability"
[ "$(grep -c milabench-entry "$work/plain.err")" = 1 ] && grep -q -- "--no-cgexec" "$work/plain.err" ||
  fail "not one line naming --no-cgexec: $(cat "$work/plain.err")"
want plain affinity

for n in data cgroups nocgexec plain; do echo "== $n"; cat "$work/$n.err" "$work/$n.out" | grep -vE '^\s*$' | tail -12; done
echo "docker-check: $([ $status = 0 ] && echo passed || echo FAILED) (files: $work)"
exit $status
