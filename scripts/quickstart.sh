#!/usr/bin/env bash
# The main job on a fresh machine, as the original's image does it: installs
# the dependencies, builds milarun (only what the suite needs: no test
# binaries, no benchmarks), sets up the student cgroups when run as root,
# makes the data the profile uses when absent, runs the whole suite on every
# device, prints the report and writes report.html next to the results.
#   GPUs found  -> profiles/standard.json with weights/standard.json, built
#                  against the libtorch of the machine's PyTorch with CUDA
#                  (python3 -c 'import torch'; docs/gpu.md): without one it
#                  stops and says how to get one (or PROFILE=profiles/cpu.json)
#   no GPU      -> profiles/cpu.json with weights/cpu.json: the same 18 tests
#                  sized for a small CPU machine (docs/performance.md), built
#                  against Debian's libtorch
# Override with PROFILE=..., WEIGHTS=..., MILARUN_DATAROOT=..., OUTDIR=...,
# SCALE=... (fraction of the real size for the image and translation
# datasets; default 0.01 on CPUs, 1 with GPUs). A second run reuses the build
# and the data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if ls /proc/driver/nvidia/gpus/* > /dev/null 2>&1; then suite=standard; scale=1; else suite=cpu; scale=0.01; fi
PROFILE=${PROFILE:-profiles/$suite.json}
torch=()
if [ "$suite" = standard ] && [ "$PROFILE" != profiles/cpu.json ]; then
  # The GPU build is the one docs/gpu.md documents: PyTorch's own libtorch.
  if ! prefix=$(python3 -c 'import torch; assert torch.version.cuda, "PyTorch is CPU-only"
print(torch.utils.cmake_prefix_path)' 2>&1 | tail -1); then
    echo "quickstart: NVIDIA GPUs are here but python3 has no PyTorch with CUDA ($prefix);" \
         "install one (pip install torch), or run on the CPUs with PROFILE=profiles/cpu.json WEIGHTS=weights/cpu.json" >&2
    exit 1
  fi
  torch=(-DCMAKE_PREFIX_PATH="$prefix")
  echo "quickstart: building against PyTorch's libtorch ($prefix)"
fi
mkdir -p build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${torch[@]}" > build/configure.log || { cat build/configure.log; exit 1; }
cmake --build build -j"$(nproc)" --target milarun  # milarun-torch comes with it
M=build/milarun

WEIGHTS=${WEIGHTS:-weights/$suite.json}
DATAROOT=${MILARUN_DATAROOT:-$PWD/data}
OUTDIR=${OUTDIR:-$PWD/results-$(date '+%Y-%m-%d.%H:%M:%S')}
SCALE=${SCALE:-$scale}

if [ "$(id -u)" = 0 ]; then
  # One student group per device (kept when they exist); without them jobs pins by affinity and says so.
  $M cgroups setup || echo "quickstart: no student cgroups (see above); runs are pinned to their CPUs instead" >&2
fi

# wiki2 and ml20m are always made at full size: their vocabulary and user/item
# counts set the models' sizes, so a smaller set would be less work per
# example. mnist and bsds500 are small. The image and translation sets only
# repeat sooner at a smaller scale.
$M dataset wiki2 ml20m mnist bsds500 -d "$DATAROOT"
scripts/download.sh -d "$DATAROOT" --profile "$PROFILE" --scale "$SCALE" --milarun "$M"

status=0
$M jobs "$PROFILE" -d "$DATAROOT" -o "$OUTDIR" || status=$?
$M report "$OUTDIR" --weights "$WEIGHTS" --html "$OUTDIR/report.html" || status=$?
echo "results: $OUTDIR (report.html inside)"
exit $status
