#!/usr/bin/env bash
# Sets up the student cgroups (one per device: equal, exclusive CPU sets and
# RAM shares) as the original's scripts/cgroup_setup.sh did, natively through
# `milarun cgroups setup` (no cgcreate/cgexec). Run as root.
#   scripts/cgroup_setup.sh [--devices N] [--memory-mb M]   # set up
#   scripts/cgroup_setup.sh status|teardown                 # show / remove what setup made
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
milarun="${MILARUN:-$here/build/milarun}"
if [ ! -x "$milarun" ]; then
  echo "cgroup_setup: $milarun not found; build first (cmake -S . -B build && cmake --build build -j2) or set MILARUN" >&2
  exit 2
fi
action=setup
case "${1:-}" in setup|status|teardown) action="$1"; shift ;; esac
if [ "$action" != status ] && [ "$(id -u)" != 0 ]; then
  echo "cgroup_setup: run as root (e.g. sudo $0 $action $*)" >&2
  exit 1
fi
exec "$milarun" cgroups "$action" "$@"
