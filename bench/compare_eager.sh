#!/usr/bin/env bash
# Side by side: each spine workload in milarun (C++) and in PyTorch Python eager
# (bench/python/*.py, Debian's python3-torch, same libtorch version), same
# thread count (default 1, init_torch's "workers or 1"), same sizes and work per
# count (the twins follow the original's code), perf = mean(rates[-20:-2]) on both sides.
# Usage: bench/compare_eager.sh [THREADS]   (needs build/milarun and /usr/bin/python3 with torch)
set -euo pipefail
cd "$(dirname "$0")/.."
T=${1:-1}
export OMP_NUM_THREADS=$T MKL_NUM_THREADS=$T OPENBLAS_NUM_THREADS=$T
data=$(mktemp -d); trap 'rm -rf "$data"' EXIT
build/milarun dataset mnist -d "$data" > /dev/null 2>&1
export MILARUN_DATAROOT=$data
perf_cpp() {  # workload max_count args...
  local w=$1 n=$2; shift 2
  build/milarun run "$w" -- --max-count "$n" --workers "$T" "$@" 2>/dev/null |
    bench/result_perf.py -
}
perf_py() {  # script max_count
  (cd bench/python && /usr/bin/python3 "$1" "$2") | /usr/bin/python3 -c "import json,sys; print(f\"{json.load(sys.stdin)['perf']:.1f}\")"
}
echo "| workload | unit | C++ milarun | PyTorch eager | ratio |"
echo "|---|---|---|---|---|"
row() {  # name unit cpp_args... -- py_script max_count
  local name=$1 unit=$2 n=$3 script=$4; shift 4
  local c p
  c=$(perf_cpp "$name" "$n" "$@"); p=$(perf_py "$script" "$n")
  echo "| $name | $unit/s | $c | $p | $(/usr/bin/python3 -c "print(f'{$c/$p:.2f}')") |"
}
row polynome samples 6000000 polynome.py --poly-degree 4 --batch-size 256
row vae samples 120000 vae.py --batch-size 128 --dataset milarun.datasets:mnist
row cart_pole steps 10000 cart_pole.py --gamma 0.99 --no-render --episode-length 500
row sine_wave samples 1000 sine_wave.py --dtype float32 --samples 100
