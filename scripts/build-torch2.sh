#!/usr/bin/env bash
# Builds the torch side against PyTorch 2.x with CUDA and NCCL: Debian 13
# (trixie) contrib's libtorch-cuda-dev 2.6 plus the CUDA toolkit's headers
# (MILABENCH_CUDA_HOME, default /usr/local/cuda: cuda_runtime_api.h, nccl.h).
# Every torch-facing file is compiled (milabench_workloads, milarun-torch's
# sources, the workload tests) and milarun-torch and workload_tests are
# linked. The programs need trixie's glibc and CUDA 12 libraries to run, so
# they are not run here (docs/gpu.md). Called by scripts/test.sh after the
# Debian 12 (libtorch 1.13) build and tests.
#
# The packages are fetched with apt from the Debian archive through a private
# apt state under .deps/apt-trixie (the system's sources and dpkg database are
# not touched) and unpacked with dpkg -x into .deps/torch2.6 (ignored by git).
# TORCH2_LINK=0: headers only (no 480 MB runtime package); then only the
# milabench_workloads library is built (every torch-facing file but the CLI's
# and the tests'). TORCH2_FETCH_ONLY=1: stop after the fetch. TORCH2_DEPS: the
# folder for the apt state and the unpacked packages (default .deps).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
deps=$(realpath -m "${TORCH2_DEPS:-.deps}")
apt_dir=$deps/apt-trixie
root=$deps/torch2.6
build=${TORCH2_BUILD_DIR:-build-torch2}
link=${TORCH2_LINK:-1}
cuda=${MILABENCH_CUDA_HOME:-/usr/local/cuda}

pkgs=(libtorch-cuda-dev libgloo-cuda-dev)
[ "$link" = 1 ] && pkgs+=(libtorch-cuda-2.6)

# Without the CUDA toolkit's headers the CUDA variant cannot be compiled: say
# so loudly and skip (the 1.13 build and tests have already passed), unless
# TORCH2_REQUIRED=1 makes it an error.
for h in cuda_runtime_api.h nccl.h; do
  if [ ! -f "$cuda/include/$h" ]; then
    echo "build-torch2: SKIPPED: $cuda/include/$h is missing; the CUDA libtorch needs the CUDA toolkit's headers" \
         "(set MILABENCH_CUDA_HOME to a toolkit with cuda_runtime_api.h and nccl.h)" >&2
    [ "${TORCH2_REQUIRED:-0}" = 1 ] && exit 1
    exit 0
  fi
done

mkdir -p "$apt_dir"/{sources.list.d,lists/partial,cache/archives/partial,debs}
cat >"$apt_dir/sources.list.d/trixie.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
touch "$apt_dir/status"
apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
          -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
          -o "Dir::State::status=$apt_dir/status" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)

want=$(printf '%s\n' "${pkgs[@]}" | sort | tr '\n' ' ')
if [ "$(cat "$root/.packages" 2>/dev/null)" != "$want" ]; then
  apt-get "${apt_opts[@]}" -qq update
  rm -rf "$root" "$apt_dir/debs"/*.deb
  (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}")
  mkdir -p "$root"
  for f in "$apt_dir/debs"/*.deb; do dpkg -x "$f" "$root"; done
  rm -f "$apt_dir/debs"/*.deb
  echo "$want" >"$root/.packages"
fi
fetched=$(date +%s)
if [ "${TORCH2_FETCH_ONLY:-0}" = 1 ]; then
  echo "build-torch2: fetched ${want}into $root in $((fetched - start)) s"
  exit 0
fi

# -Werror=deprecated-declarations: no deprecated libtorch call may remain.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DMILABENCH_TORCH_DEB_ROOT="$root" \
      -DMILABENCH_CUDA_HOME="$cuda" -DCMAKE_CXX_FLAGS=-Werror=deprecated-declarations \
      ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER} \
      >"$deps/build-torch2.cmake.log"
grep -E '^-- libtorch from' "$deps/build-torch2.cmake.log" || true
if [ "$link" = 1 ]; then
  targets=(milarun-torch workload_tests)
else
  targets=(milabench_workloads)
fi
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
end=$(date +%s)
v=$(awk '/define TORCH_VERSION_(MAJOR|MINOR|PATCH)/ {printf "%s%s", sep, $3; sep="."}' \
  "$root/usr/include/torch/csrc/api/include/torch/version.h")
echo "build-torch2: libtorch $v (CUDA, NCCL): built ${targets[*]} in $((end - start)) s" \
     "(fetch and unpack $((fetched - start)) s)"
