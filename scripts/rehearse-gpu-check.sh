#!/usr/bin/env bash
# Rehearses scripts/gpu-check.sh's build path here, without a GPU (docs/gpu.md):
# the Debian 12 .debs of scripts/gpu-fetch.sh unpacked into a prefix, and
# libtorch 2.6 with CUDA and NCCL (trixie's headers, .deps/torch2.6 from
# scripts/build-torch2.sh) in place of the GPU machine's PyTorch. It runs in a
# private mount namespace (root: unshare -m) where /usr/include holds only the
# C/C++ toolchain's headers (libc6-dev, linux-libc-dev, libstdc++-12-dev,
# libcrypt-dev) and the system's CMake and pkg-config files are hidden, so
# every other header and config must come from the prefix, as on that machine.
# GPU_CHECK_TARGETS limits what is built (default: all three programs; CMake
# targets or, with Ninja, object files such as
# CMakeFiles/milabench_core.dir/src/fetch/downloader.cpp.o).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "$(ls .deps/gpu-check/debs/*.deb 2>/dev/null)" ] || scripts/gpu-fetch.sh
[ -f .deps/torch2.6/usr/include/torch/csrc/api/include/torch/torch.h ] ||
  { echo "rehearse-gpu-check: run scripts/build-torch2.sh first (it fetches .deps/torch2.6)" >&2; exit 1; }
bare=${TMPDIR:-/tmp}/gpu-check-bare-include
if [ ! -f "$bare/.complete" ]; then
  rm -rf "$bare" && mkdir -p "$bare"
  dpkg -L libc6-dev linux-libc-dev libstdc++-12-dev libcrypt-dev | grep '^/usr/include/' | while read -r f; do
    if [ -f "$f" ] || [ -L "$f" ]; then mkdir -p "$bare$(dirname "$f")" && cp -P -p "$f" "$bare$f"; fi
  done
  touch "$bare/.complete"
fi
hide="/usr/lib/x86_64-linux-gnu/cmake /usr/lib/cmake /usr/share/cmake /usr/lib/x86_64-linux-gnu/pkgconfig"
hide="$hide /usr/share/pkgconfig /usr/lib/pkgconfig"
export GPU_CHECK_TORCH_DEB_ROOT=$PWD/.deps/torch2.6 OUT=${OUT:-$PWD/build-rehearsal}
export GPU_CHECK_WORK=${GPU_CHECK_WORK:-/tmp/gpu-check-rehearsal} GPU_CHECK_PKG_CONFIG=bundled
unshare -m bash -c "
  set -e
  mount --bind '$bare/usr/include' /usr/include
  for d in $hide; do [ -d \$d ] && mount -t tmpfs none \$d; done
  scripts/gpu-check.sh"
