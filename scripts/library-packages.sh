#!/usr/bin/env bash
# Prints, one a line and sorted, the Debian packages that own the shared
# libraries the given programs load (ldd: the whole closure). The Dockerfile's
# build stage writes this list and the run-time stage installs it, so the
# image carries exactly the libraries the programs need and no -dev package.
#   scripts/library-packages.sh build/milarun build/milarun-torch
# Exit status 1 (naming the library) when one is not found or belongs to no package.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 PROGRAM..." >&2; exit 2; }
owner() {  # dpkg records a file under /lib or /usr/lib (merged /usr): try both spellings
  local f=$1 real
  real=$(readlink -f "$f")
  for p in "$f" "$real" "${f#/usr}" "/usr$f" "${real#/usr}" "/usr$real"; do
    dpkg-query -S "$p" 2>/dev/null | head -1 | cut -d: -f1 | grep . && return 0
  done
  return 1
}
libs=$(for prog in "$@"; do
  ldd "$prog" || { echo "library-packages: ldd failed on $prog" >&2; exit 1; }
done | awk '/not found/ {print "MISSING:" $1; next} $2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u)
status=0
pkgs=()
for lib in $libs; do
  case $lib in
    MISSING:*) echo "library-packages: ${lib#MISSING:} not found (ldd)" >&2; status=1; continue ;;
  esac
  if pkg=$(owner "$lib"); then pkgs+=("$pkg"); else
    echo "library-packages: $lib belongs to no installed package" >&2; status=1
  fi
done
[ ${#pkgs[@]} -eq 0 ] || printf '%s\n' "${pkgs[@]}" | sort -u
exit $status
