#!/usr/bin/env bash
# loader vs libjpeg-turbo's decode-only ceiling on the same files with the same
# W threads, alternated ROUNDS times: jpeg_decode_bench (full-size decode, decode
# at the loader's DCT scale, the loader's per-image transform) then
# `milarun run loader` (images/s = mean of the 0.5 s slices after the first two).
# Prints each line and loader / full-size decode.
# Usage: bench/compare_loader.sh DATAROOT [WORKERS] [ROUNDS] [BATCH] [COUNT]
set -euo pipefail
cd "$(dirname "$0")/.."
D=$1 W=${2:-2} ROUNDS=${3:-2} B=${4:-32} N=${5:-640}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
for r in $(seq "$ROUNDS"); do
  echo "round $r (load $(cut -d' ' -f1 /proc/loadavg))"
  build/jpeg_decode_bench "$D/ImageNet/train" "$W" 5 | tee "$out/d.txt"
  build/milarun run loader -d "$D" -o "$out/l.json" -- --batch-size "$B" --workers "$W" --no-cuda --max-count "$N" \
    > /dev/null 2>&1
  /usr/bin/python3 - "$out/l.json" "$out/d.txt" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))["timings"]["train"]["rates"][2:]
loader = sum(r) / len(r)
full = float(re.search(r"full-size decode: ([0-9.]+)", open(sys.argv[2]).read()).group(1))
print(f"loader: {loader:.1f} images/s; loader / full-size decode: {loader / full:.2f}")
PY
done
