#!/usr/bin/env bash
# Rate of each vision workload (C++ milarun, CPU) at the given --workers values,
# short runs: images per timed second (count / timings.train.time) and the
# suite's perf (mean of rates[-20:-2], or of all slices when fewer). For sizing
# profiles/cpu.json; the settings are CPU-sized, not the standard profile's.
# Usage: DATA=dir bench/vision_rates.sh "1 2" [NAME...]   (DATA as compare_vision_eager.sh makes it)
set -euo pipefail
cd "$(dirname "$0")/.."
WS=$1; shift
names=${*:-loader convnet dcgan reso fast_style ssd scaling}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
args() {
  case $1 in
    loader) echo "320 --batch-size 32" ;;
    convnet) echo "48 --arch resnet18 --batch-size 16" ;;
    dcgan) echo "96 --batch-size 32" ;;
    reso) echo "64 --batch-size 16" ;;
    fast_style) echo "24 --batch-size 8 --image-size 64 --style-size 64" ;;
    ssd) echo "4 --batch-size 2" ;;
    scaling) echo "48 --batch-size 16" ;;
  esac
}
echo "| workload | settings | workers | images/s (count / time) | perf | wall s |"
echo "|---|---|---|---|---|---|"
for n in $names; do
  set -- $(args "$n"); max=$1; shift
  for w in $WS; do
    OMP_NUM_THREADS=$w build/milarun run "$n" -d "$DATA" -o "$out/r.json" -- --no-cuda --max-count "$max" --workers "$w" "$@" \
      > /dev/null 2>&1 || { echo "| $n | $* | $w | failed | | |"; continue; }
    /usr/bin/python3 - "$out/r.json" "$n" "$*" "$w" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = r["timings"].get("train") or r["timings"]["train_0"]
w = t["rates"][-20:-2] or t["rates"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {t['count'] / t['time']:.2f} | {sum(w) / len(w):.2f} | {t['wall_time']:.0f} |")
PY
  done
done
