#!/usr/bin/env bash
# wlm (GRU, emsize/nhid 656, dropout 0.5, bptt 35, batch 64 as the profile)
# and wlmfp16 (batch 128, bfloat16 autocast on CPU): milarun (C++) and
# bench/python/wlm.py (PyTorch eager) alternated C,E,C,E ROUNDS times, same
# thread count, same wiki2 files. C++ sequences/s = mean of the steps after the
# first (bench/rate_groups.py); Python = --steps timed steps after 1 warm-up.
# Usage: bench/compare_wlm.sh DATAROOT [THREADS] [ROUNDS] [STEPS] [wlm|wlmfp16]
set -euo pipefail
cd "$(dirname "$0")/.."
D=$1 T=${2:-1} ROUNDS=${3:-2} S=${4:-3} W=${5:-wlm}
export OMP_NUM_THREADS=$T MKL_NUM_THREADS=$T
B=64 X=()
if [ "$W" = wlmfp16 ]; then B=128 X=(--bf16); fi
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
for r in $(seq "$ROUNDS"); do
  build/milarun run "$W" -d "$D" -o "$out/c$r.json" -- --batch-size $B --emsize 656 --nhid 656 --dropout 0.5 \
    --model GRU --workers "$T" --max-count $((B * (S + 1))) > /dev/null 2>&1
  echo "C++   $W round $r (load $(cut -d' ' -f1 /proc/loadavg)): $(bench/rate_groups.py "$out/c$r.json")"
  echo "eager $W round $r (load $(cut -d' ' -f1 /proc/loadavg)): $(/usr/bin/python3 bench/python/wlm.py -d "$D" \
    --threads "$T" --batch-size $B "${X[@]}" --warmup 1 --steps "$S" | tail -1)"
done
