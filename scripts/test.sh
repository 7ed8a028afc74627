#!/usr/bin/env bash
# Installs, builds and runs every test. Used by .ci/run.
# Then builds the torch side against libtorch 2.6 with CUDA and NCCL
# (scripts/build-torch2.sh; docs/gpu.md); MILABENCH_SKIP_TORCH2=1 skips that.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
(cd build && ctest --output-on-failure)
if [ "${MILABENCH_SKIP_TORCH2:-0}" != 1 ]; then
  scripts/build-torch2.sh
fi
