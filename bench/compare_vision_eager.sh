#!/usr/bin/env bash
# The vision workloads in milarun (C++) and in their eager twins
# (bench/python/<name>.py: the original's code on Debian's python3-torch 1.13 +
# torchvision 0.14, the same libtorch), doing the same work: full-resolution
# decode, the original's counts, host reads and loop (bench/python/original_loop.py
# is the original's dataloop + RateLogger). Same --workers T on both sides
# (loader threads/processes and torch's threads = T), same sizes, CPU,
# alternated C,E ROUNDS times. Both figures are perf = mean(rates[-20:-2]) of the
# 0.5 s slices, as `milarun summary` computes it; each cell lists every round and
# the ratio is of the medians (a shared machine's speed drifts between minutes).
# LOAD=N: N busy loops (one core each) run beside both sides for the whole comparison,
# a shared machine made reproducible.
# Usage: [LOG=file] [LOAD=N] bench/compare_vision_eager.sh THREADS ROUNDS NAME...
#   NAME: loader convnet convnet_fp16 dcgan reso fast_style ssd scaling; WORKERS_ONLY=1 runs the C++ side only.
#   convnet_fp16 is `milarun run convnet --half` (bfloat16 autocast on a CPU) against convnet.py --bf16.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${1:-2} R=${2:-1}; shift 2
export OMP_NUM_THREADS=$T MKL_NUM_THREADS=$T OPENBLAS_NUM_THREADS=$T
data=${DATA:-$(mktemp -d)}
busy=()
cleanup() {
  [ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null || true
  [ -n "${DATA:-}" ] || rm -rf "$data"
}
trap cleanup EXIT
[ -d "$data/ImageNet" ] || build/milarun dataset fake_imagenet -d "$data" --scale 0.002 > /dev/null  # 200 train images
[ -d "$data/bsds500" ] || build/milarun dataset bsds500 -d "$data" > /dev/null                     # 200 train images
[ -d "$data/coco" ] || build/milarun dataset coco -d "$data" --scale 0.0005 > /dev/null            # 59 train images
for _ in $(seq "${LOAD:-0}"); do
  (while :; do :; done) &
  busy+=($!)
done
perf_cpp() {  # workload max_count args...
  local w=$1 n=$2; shift 2
  build/milarun run "$w" -d "$data" -- --no-cuda --max-count "$n" "$@" 2>>"${LOG:-/dev/null}" |
    bench/result_perf.py -
}
perf_py() {  # script max_count args...
  local s=$1 n=$2; shift 2
  (cd bench/python && /usr/bin/python3 "$s" --dataroot "$data" --max-count "$n" "$@" 2>>"${LOG:-/dev/null}") |
    /usr/bin/python3 -c "import json,sys; print(f\"{json.loads(sys.stdin.readlines()[-1])['perf']:.2f}\")"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "| workload | settings (threads $T) | C++ milarun (rounds; median) | eager twin (rounds; median) | ratio |"
echo "|---|---|---|---|---|"
row() {  # name settings max_count "args" [twin-only args] [C++-only args]
  local cs=() ps=() c p="-" w=${1%_fp16}
  for _ in $(seq "$R"); do
    cs+=("$(perf_cpp "$w" "$3" $4 ${6:-})")
    [ -n "${WORKERS_ONLY:-}" ] || ps+=("$(perf_py "$w.py" "$3" $4 ${5:-})")
  done
  c=$(median "${cs[@]}")
  if [ -z "${WORKERS_ONLY:-}" ]; then
    p=$(median "${ps[@]}")
    echo "| $1 | $2 | ${cs[*]}; **$c** | ${ps[*]}; **$p** | $(/usr/bin/python3 -c "print(f'{$c/$p:.2f}')") |"
  else
    echo "| $1 | $2 | ${cs[*]}; **$c** | - | - |"
  fi
}
for name in "$@"; do
  case $name in
    loader) row loader "batch 32, 224 crops" 1600 "--batch-size 32 --workers $T" ;;
    convnet) row convnet "resnet18, batch 16, 224 crops" 480 "--arch resnet18 --batch-size 16 --workers $T" ;;
    convnet_fp16) row convnet_fp16 "resnet18, batch 16, 224 crops, bfloat16 autocast" 480 \
      "--arch resnet18 --batch-size 16 --workers $T" --bf16 --half ;;
    dcgan) row dcgan "batch 32, 64x64" 480 "--batch-size 32 --workers $T" ;;
    reso) row reso "batch 16, crop 256, r 2" 2400 "--batch-size 16 --workers $T" ;;
    fast_style) row fast_style "batch 8, 64x64, style 64" 480 "--batch-size 8 --image-size 64 --style-size 64 --workers $T" ;;
    ssd) row ssd "batch 2, 300x300, 4 loader workers" ${SSD_COUNT:-40} "--batch-size 2 --workers $T" ;;
    scaling) row scaling "alexnet, batch 16, 224, 1 rank" 640 "--batch-size 16 --workers $T" ;;
    *) echo "unknown workload $name" >&2; exit 2 ;;
  esac
done
