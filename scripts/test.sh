#!/usr/bin/env bash
# Installs, builds and runs every test. Used by .ci/run.
# Then the GPU build's traps without a GPU (docs/gpu.md, "Three layouts"):
# builds the torch side against libtorch 2.6 with CUDA and NCCL laid out as
# PyTorch's pip wheel (scripts/build-torch2.sh), and fetches the device
# check's Debian packages, checking their run-time closure
# (scripts/gpu-fetch.sh, scripts/deb_closure.py). MILABENCH_SKIP_TORCH2=1
# skips both.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Ninja: an object rebuilds only when its own command changes. (With Make,
# adding a source rewrote the target's flags.make, on which every object and
# the precompiled torch header depend: ~35 min of rebuilds on 2 cores.) An
# existing build folder keeps the generator it was made with.
gen=()
[ -f build/CMakeCache.txt ] || gen=(-G Ninja)
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
(cd build && ctest --output-on-failure)
if [ "${MILABENCH_SKIP_TORCH2:-0}" != 1 ]; then
  scripts/build-torch2.sh
  scripts/gpu-fetch.sh
fi
