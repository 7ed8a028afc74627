#!/usr/bin/env bash
# dcgan, reso, fast_style in milarun (C++) and in PyTorch Python eager
# (bench/python/{dcgan,reso,fast_style}.py, Debian's python3-torch 1.13 +
# torchvision 0.14, the same libtorch version), alternated C,E,C,E... ROUNDS
# times, same threads (--workers T: loader threads and torch's intra-op
# threads on both sides), same batch sizes, CPU.
# C++ figure: the suite's own perf, mean(rates[-20:-2]) of the 0.5 s slices;
# Python: images/s over the timed steps after the warm-up steps.
# A shared VM's speed drifts by tens of percent between minutes, so each cell
# lists every round and the ratio is of the medians.
# Usage: [LOG=file] bench/compare_vision_eager.sh [THREADS] [ROUNDS]
#   (needs build/milarun; LOG keeps milarun's stderr)
set -euo pipefail
cd "$(dirname "$0")/.."
T=${1:-2} R=${2:-3}
export OMP_NUM_THREADS=$T MKL_NUM_THREADS=$T OPENBLAS_NUM_THREADS=$T
data=$(mktemp -d); trap 'rm -rf "$data"' EXIT
build/milarun dataset fake_imagenet -d "$data" --scale 0.002 > /dev/null   # 200 train images
build/milarun dataset bsds500 -d "$data" > /dev/null                       # 200 train images
perf_cpp() {  # workload max_count args...
  local w=$1 n=$2; shift 2
  build/milarun run "$w" -d "$data" -- --no-cuda --max-count "$n" --workers "$T" "$@" 2>>"${LOG:-/dev/null}" |
    /usr/bin/python3 -c "import json,sys; r=json.load(sys.stdin)['timings']['train']['rates']; assert len(r) >= 22, f'$w: only {len(r)} slices, raise its max count in this script'; w=r[-20:-2]; print(f'{sum(w)/len(w):.2f}')"
}
perf_py() {  # script args...
  local s=$1; shift
  (cd bench/python && /usr/bin/python3 "$s" --dataroot "$data" --workers "$T" "$@") |
    sed -n 's/.*: \([0-9.]*\) images\/s.*/\1/p'
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "| workload | settings | C++ milarun images/s (rounds; median) | PyTorch eager images/s (rounds; median) | ratio of medians |"
echo "|---|---|---|---|---|"
row() {  # name settings cpp_max_count "cpp args" "py args"
  local cs=() ps=() c p
  for _ in $(seq "$R"); do
    cs+=("$(perf_cpp "$1" "$3" $4)")
    ps+=("$(perf_py "$1.py" $5)")
  done
  c=$(median "${cs[@]}") p=$(median "${ps[@]}")
  echo "| $1 | $2 | ${cs[*]}; **$c** | ${ps[*]}; **$p** | $(/usr/bin/python3 -c "print(f'{$c/$p:.2f}')") |"
}
row dcgan "batch 32, 64x64" 960 "--batch-size 32" "--batch-size 32 --steps 20 --warmup 3"
row reso "batch 16, crop 256, r 2" 1600 "--batch-size 16" "--batch-size 16 --steps 20 --warmup 3"
row fast_style "batch 8, 64x64, style 64" 640 "--batch-size 8 --image-size 64 --style-size 64" \
  "--batch-size 8 --image-size 64 --style-size 64 --steps 30 --warmup 3"
