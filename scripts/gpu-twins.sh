#!/usr/bin/env bash
# The device check, second command (docs/gpu.md), on the machine that
# scripts/gpu-check.sh just ran on, while it is warm: the PyTorch eager twins
# (bench/python/gpu_twins.py) of convnet, convnet_fp16, dcgan, fast_style, ssd,
# translator, wlm, wlmfp16, vae and reso on the same GPU, with the profile's
# batch sizes, precision, workers and syncs, on gpu-check's datasets; then the
# C++/eager ratio per test against gpu-check's results.
#   scripts/gpu-twins.sh           # after gpu-check.sh, same GPU_CHECK_WORK
#   scripts/gpu-twins.sh --dry     # CPU, tiny datasets and sizes: do the twins still run? (ctest gpu_twins_dry)
# Env: OUT (default ./gpu-check-out), GPU_CHECK_WORK (default /tmp/gpu-check),
#      TWINS_BUDGET (seconds for all the twins, default 200), TWINS_TESTS
#      (comma list, default all ten), PYTHON (default python3; --dry: /usr/bin/python3,
#      Debian's python3-torch), MILARUN (--dry: the milarun that makes the datasets,
#      default build/milarun).
# Writes $OUT/twins.txt (the table), $OUT/twins.json, $OUT/twins.log.
# Exit status: 0 when every twin ran; 1 when one failed; 2 on a bad setup.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
dry=0
[ "${1:-}" = --dry ] && dry=1
[ $# -le $dry ] || { echo "gpu-twins.sh: unknown argument '${!#}' (only --dry)" >&2; exit 2; }
OUT=${OUT:-$repo/gpu-check-out}
tests=${TWINS_TESTS:-convnet,convnet_fp16,dcgan,fast_style,ssd,translator,wlm,wlmfp16,vae,reso}
mkdir -p "$OUT"

if [ $dry = 1 ]; then
  py=${PYTHON:-/usr/bin/python3}
  milarun=${MILARUN:-$repo/build/milarun}
  "$py" -c 'import torch, torchvision' 2>/dev/null ||
    { echo "gpu-twins.sh --dry: $py cannot import torch and torchvision (scripts/install-deps.sh test)"; exit 77; }
  [ -x "$milarun" ] || { echo "gpu-twins.sh --dry: no $milarun (build it, or set MILARUN)" >&2; exit 2; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  data=$work/data
  # The smallest datasets the twins accept (a few images or sentences each).
  "$milarun" dataset fake_imagenet coco wmt16 wiki2 mnist -d "$data" --scale 0.0002 >"$work/dataset.log" 2>&1 &&
    "$milarun" dataset bsds500 -d "$data" --scale 0.05 >>"$work/dataset.log" 2>&1 ||
    { cat "$work/dataset.log"; echo "gpu-twins.sh --dry: dataset generation failed" >&2; exit 2; }
  # One tiny C++ result, so that the ratio column reads milarun's result format too.
  mkdir -p "$work/results"
  "$milarun" run vae -d "$data" -o "$work/results/standard.vae.J0.0.20260101-000000-000000.json" -- \
    --no-cuda --batch-size 8 --max-count 64 >"$work/vae.log" 2>&1 ||
    { cat "$work/vae.log"; echo "gpu-twins.sh --dry: milarun run vae failed" >&2; exit 2; }
  exec "$py" bench/python/gpu_twins.py --dry --tests "$tests" --data "$data" --results "$work/results" --out "$OUT"
fi

work=${GPU_CHECK_WORK:-/tmp/gpu-check}
py=${PYTHON:-python3}
[ -d "$work/data" ] || { echo "gpu-twins.sh: no $work/data: run scripts/gpu-check.sh first (same GPU_CHECK_WORK)" >&2; exit 2; }
"$py" -c 'import torch, torchvision; assert torch.cuda.is_available()' 2>/dev/null ||
  { echo "gpu-twins.sh: $py has no torch/torchvision with CUDA" >&2; exit 2; }
PYTHONUNBUFFERED=1 "$py" bench/python/gpu_twins.py --budget "${TWINS_BUDGET:-200}" --tests "$tests" \
  --data "$work/data" --results "$work/results" --out "$OUT" 2>&1 | tee "$OUT/twins.log"
