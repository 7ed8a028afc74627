#!/usr/bin/env bash
# minigrid at the profile's sizes (64 procs x 40 frames, recurrence 20, batch
# 1280, 4 epochs): milarun (C++) and bench/python/minigrid.py (PyTorch eager)
# alternated C,E,C,E,... ROUNDS times, same thread count; frames/s = mean of
# the updates after the first on both sides. Prints one line per run.
# The C++ side gets --workers T: its torch threads are the original's --workers
# (default 8), so without it C++ ran 8 threads against the twin's T.
# Usage: bench/compare_minigrid.sh [THREADS] [ROUNDS] [UPDATES]
set -euo pipefail
cd "$(dirname "$0")/.."
T=${1:-1} ROUNDS=${2:-3} U=${3:-3}
export OMP_NUM_THREADS=$T MKL_NUM_THREADS=$T
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
for r in $(seq "$ROUNDS"); do
  build/milarun run minigrid -o "$out/c$r.json" -- --workers "$T" --max-count $((2560 * U)) > /dev/null 2>&1
  echo "C++   round $r (load $(cut -d' ' -f1 /proc/loadavg)): $(bench/rate_groups.py "$out/c$r.json")"
  echo "eager round $r (load $(cut -d' ' -f1 /proc/loadavg)): $(/usr/bin/python3 bench/python/minigrid.py --updates "$U" --threads "$T" | tail -1)"
done
