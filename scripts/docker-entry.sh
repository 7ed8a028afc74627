#!/usr/bin/env bash
# Entry point of the milabench image (Dockerfile, docs/docker.md). Sets up the
# student cgroups when the container may (`milarun cgroups setup`: one group
# per device, docs/isolation.md), then runs the command:
#   (none)                                 -> bash
#   milarun ARGS                           -> milarun ARGS
#   a program on PATH (bash, scripts/...)  -> that program
#   anything else (jobs ..., --version)    -> milarun with those arguments
# Docker and Podman give a container its cgroup hierarchies read-only. With
# CAP_SYS_ADMIN (--cap-add=SYS_ADMIN --security-opt=apparmor:unconfined) they
# are made writable in the container's own mount namespace (a bind remount,
# never the host's mounts); hierarchies that are not mounted are mounted, as
# the original's docker_cgroup_setup.sh did; on cgroup v2 the container's
# processes move to a child group "init" so that the controllers can be given
# to the student groups. When the groups cannot be made, one line on stderr
# says why and that --no-cgexec is the way; the command runs anyway (milarun
# jobs then pins each run to its CPUs and warns once).
# Every message goes to stderr: stdout stays the command's (jobs without -o
# prints its results there).
# Env: MILABENCH_CGROUPS=off skips the set-up (so does --no-cgexec anywhere in
#      the command); MILABENCH_CGROUP_ARGS adds arguments to `cgroups setup`
#      (e.g. "--devices 4 --memory-mb 16000"); MILARUN names the milarun program.
set -uo pipefail
milarun=${MILARUN:-milarun}
say() { echo "milabench-entry: $*" >&2; }

has_cap_sys_admin() {  # bit 21 of the effective capabilities
  local eff
  eff=$(awk '/^CapEff:/ {print $2}' /proc/self/status)
  [ -n "$eff" ] && (((0x$eff >> 21) & 1))
}

# Mount points of the v1 cpuset and memory hierarchies and of cgroup2, one per line: "KIND DIR OPTIONS".
cgroup_mounts() {
  awk '$3 == "cgroup" && $4 ~ /(^|,)(cpuset|memory)(,|$)/ {print "v1", $2, $4}
       $3 == "cgroup2" {print "v2", $2, $4}' /proc/mounts
}

# The cgroup2 mount that offers cpuset and memory, when the v1 hierarchies are not both mounted.
v2_root() {
  cgroup_mounts | grep -q '^v1 .*cpuset' && cgroup_mounts | grep -q '^v1 .*memory' && return 1
  local kind dir opts
  while read -r kind dir opts; do
    [ "$kind" = v2 ] && grep -qw cpuset "$dir/cgroup.controllers" 2>/dev/null &&
      grep -qw memory "$dir/cgroup.controllers" && { echo "$dir"; return 0; }
  done < <(cgroup_mounts)
  return 1
}

# Makes the hierarchies writable, mounts them when none is usable, frees a v2
# root of its processes. Needs CAP_SYS_ADMIN; non-zero when nothing changed.
prepare_hierarchies() {
  local kind dir opts changed=1
  while read -r kind dir opts; do
    case ",$opts," in
      *,ro,*) mount -o remount,bind,rw "$dir" 2>/dev/null && changed=0 ;;
    esac
  done < <(cgroup_mounts)
  local v2
  v2=$(v2_root)
  if [ -z "$v2" ] && ! { cgroup_mounts | grep -q '^v1 .*cpuset' && cgroup_mounts | grep -q '^v1 .*memory'; }; then
    # Nothing usable mounted: the cpuset and memory hierarchies, as the original's image did.
    mkdir -p /sys/fs/cgroup/cpuset /sys/fs/cgroup/memory 2>/dev/null ||
      { mount -t tmpfs cgroup_root /sys/fs/cgroup 2>/dev/null && mkdir -p /sys/fs/cgroup/cpuset /sys/fs/cgroup/memory; }
    for c in cpuset memory; do
      cgroup_mounts | grep -q "^v1 .*$c" && continue
      mount -t cgroup -o $c $c /sys/fs/cgroup/$c 2>/dev/null && changed=0
    done
  fi
  if [ -n "$v2" ] && [ -n "$(cat "$v2/cgroup.procs" 2>/dev/null)" ] &&
     ! grep -qw cpuset "$v2/cgroup.subtree_control" 2>/dev/null; then  # (cgroup files have size 0: read them)
    # cgroup v2: a group with processes cannot give controllers to its children
    # ("no internal processes"), so the container's processes move to "init".
    mkdir -p "$v2/init" 2>/dev/null && changed=0
    local pid
    while read -r pid; do echo "$pid" >"$v2/init/cgroup.procs"; done <"$v2/cgroup.procs" 2>/dev/null
  fi
  return $changed
}

setup_cgroups() {
  local out extra=()
  read -r -a extra <<<"${MILABENCH_CGROUP_ARGS:-}"
  out=$("$milarun" cgroups setup "${extra[@]}" 2>&1) && { printf '%s\n' "$out" >&2; return 0; }
  if has_cap_sys_admin && prepare_hierarchies; then
    out=$("$milarun" cgroups setup "${extra[@]}" 2>&1) && { printf '%s\n' "$out" >&2; return 0; }
  fi
  local why
  why=$(printf '%s\n' "$out" | tail -1)
  if ! has_cap_sys_admin && cgroup_mounts | awk '{print $3}' | grep -qE '(^|,)ro(,|$)'; then
    why="the cgroup hierarchies are read-only and the container lacks CAP_SYS_ADMIN"
  fi
  say "no student cgroups ($why): run the container with --cap-add=SYS_ADMIN" \
      "--security-opt=apparmor:unconfined, or pass --no-cgexec to milarun jobs to run without them"
}

want_cgroups=1
[ "${MILABENCH_CGROUPS:-auto}" != off ] || want_cgroups=0
for a in "$@"; do [ "$a" != --no-cgexec ] || want_cgroups=0; done
[ $want_cgroups = 0 ] || setup_cgroups

[ $# -gt 0 ] || set -- bash
[ "$1" != milarun ] || { shift; exec "$milarun" "$@"; }
command -v -- "$1" >/dev/null || exec "$milarun" "$@"  # jobs, report, --version, ...: milarun's
exec "$@"
