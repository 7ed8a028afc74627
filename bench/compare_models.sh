#!/usr/bin/env bash
# atari (the standard profile's PPO flags, 16 games x 128 steps), recom (full
# ml20m, batch 2048) and translator (GNMT v2 at --hidden-size 128, no
# bucketing): milarun (C++) and their eager twins in bench/python/ alternated
# C,E,C,E ROUNDS times, same thread count T (the C++ side gets --workers T:
# its torch threads are the original's --workers, recom's loader threads too).
# Rates in each workload's count unit:
#   atari       count/s, mean of the updates after the first (bench/rate_groups.py)
#   recom       samples/s, C++ mean(rates[-20:-2]); eager 30 steps after 3 (batches premade)
#   translator  sentences/s of the slices after 5 s on both sides
# Usage: bench/compare_models.sh DATAROOT [THREADS] [ROUNDS] [atari recom translator]
#   DATAROOT needs ml-20m (any scale; the profile's is full) and wmt16.
set -euo pipefail
cd "$(dirname "$0")/.."
D=$1 T=${2:-1} ROUNDS=${3:-2}
shift $(($# < 3 ? $# : 3))
WORKLOADS=("$@")
[ ${#WORKLOADS[@]} -gt 0 ] || WORKLOADS=(atari recom translator)
export OMP_NUM_THREADS=$T MKL_NUM_THREADS=$T
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }
ATARI=(--env-name PongNoFrameskip-v4 --num-steps 128 --num-processes 16 --algo ppo --use-gae --clip-param 0.1
  --value-loss-coef 0.5 --num-mini-batch 4 --use-linear-lr-decay --entropy-coef 0.01)
TR=(--hidden-size 128 --batch-size 32 --max-size 20000)
for r in $(seq "$ROUNDS"); do
  for w in "${WORKLOADS[@]}"; do
    f=$out/$w$r.json
    case $w in
      atari)
        build/milarun run atari -o "$f" -- "${ATARI[@]}" --workers "$T" --max-count 64 > /dev/null 2>&1
        echo "C++   atari round $r (load $(load)): $(bench/rate_groups.py "$f")"
        echo "eager atari round $r (load $(load)): $(/usr/bin/python3 bench/python/atari.py --algo ppo \
          --num-processes 16 --num-steps 128 --num-mini-batch 4 --updates 4 --threads "$T" | tail -1)" ;;
      recom)
        build/milarun run recom -d "$D" -o "$f" -- --layers 256,256,128,64 -f 64 -l 0.0005 --batch-size 2048 \
          --workers "$T" --max-count 307200 > /dev/null 2>&1
        echo "C++   recom round $r (load $(load)): $(bench/result_perf.py "$f") samples/s"
        echo "eager recom round $r (load $(load)): $(/usr/bin/python3 bench/python/recom.py -d "$D" --threads "$T" \
          --batch-size 2048 --warmup 3 --steps 30 | tail -1)" ;;
      translator)
        build/milarun run translator -d "$D" -o "$f" -- "${TR[@]}" --workers "$T" --no-bucketing \
          --max-count 640 > /dev/null 2>&1
        echo "C++   translator round $r (load $(load)): $(bench/result_perf.py --after-slices 10 "$f") sentences/s after 5 s"
        echo "eager translator round $r (load $(load)): $(/usr/bin/python3 bench/python/translator.py --dataroot "$D" \
          "${TR[@]}" --seconds 50 --threads "$T" --no-bucketing | tail -1)" ;;
      *) echo "unknown workload $w (atari, recom, translator)" >&2; exit 2 ;;
    esac
  done
done
