#!/usr/bin/env bash
# The one-shot device check (docs/gpu.md), for a GPU machine that has
# PyTorch (python3 -c 'import torch'), CMake, a C++ compiler and no network:
#   1. unpacks the Debian 12 .debs that scripts/gpu-fetch.sh fetched into
#      .deps/gpu-check (carry that path) into a prefix with dpkg -x; a library
#      of theirs goes on the loader's path only when the machine lacks it;
#   2. builds milarun, milarun-torch and workload_tests against that PyTorch's
#      libtorch (torch.utils.cmake_prefix_path): CUDA, NCCL, torch 2.x;
#   3. runs the mixed-precision and CUDA tests (none may say "skipped: no CUDA");
#   4. makes the standard profile's datasets at a small --scale and runs every
#      test of profiles/standard.json on the GPU with --max-count cut so the
#      whole check ends within about 8 minutes; scaling also once as a
#      one-rank NCCL process group (--distributed-dataparallel);
#   5. prints the report and writes it, the log and the results under $OUT.
# Exit status: 0 when every step passed and every run succeeded.
# Env: OUT (default ./gpu-check-out), GPU_CHECK_WORK (default /tmp/gpu-check),
#      GPU_CHECK_DIVISOR (max-count divisor, default 20), GPU_CHECK_SCALE
#      (dataset scale, default 0.02), PYTHON (default python3),
#      GPU_CHECK_BUILD_TIMEOUT (s, default 330; 0 = none).
# Rehearsal without a GPU (scripts/rehearse-gpu-check.sh): GPU_CHECK_TORCH_DEB_ROOT
# names a libtorch unpacked from .debs (.deps/torch2.6) used instead of
# PyTorch's; the check stops after the build. GPU_CHECK_BUILD_ONLY=1: PyTorch's
# libtorch, no GPU needed, stops after the build (Dockerfile.gpu builds so).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
OUT=${OUT:-$repo/gpu-check-out}
work=${GPU_CHECK_WORK:-/tmp/gpu-check}
divisor=${GPU_CHECK_DIVISOR:-20}
scale=${GPU_CHECK_SCALE:-0.02}
py=${PYTHON:-python3}
mkdir -p "$OUT" "$work"
exec > >(tee "$OUT/gpu-check.log") 2>&1
t0=$(date +%s)
status=0
phase() { echo; echo "== $(($(date +%s) - t0)) s: $*"; }
fail() { echo "gpu-check: $*"; status=1; }

rehearsal=${GPU_CHECK_TORCH_DEB_ROOT:-}
build_only=${GPU_CHECK_BUILD_ONLY:-0}
[ -z "$rehearsal" ] || build_only=1
phase "machine"
if [ -z "$rehearsal" ]; then
  [ "$build_only" = 1 ] || nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || fail "nvidia-smi found no GPU"
  "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count())' ||
    { fail "$py cannot import torch"; exit 1; }
fi
for tool in cmake c++ dpkg-deb; do command -v $tool >/dev/null || { fail "$tool is not on PATH"; exit 1; }; done
echo "cmake $(cmake --version | head -1 | cut -d' ' -f3), $(c++ --version | head -1), $(nproc) CPUs"

phase "unpack the Debian 12 packages"
prefix=$work/prefix
fallback=$work/fallback-lib
debs=(.deps/gpu-check/debs/*.deb)
[ -f "${debs[0]}" ] || { fail ".deps/gpu-check/debs has no .deb: run scripts/gpu-fetch.sh where apt works, carry .deps/gpu-check"; exit 1; }
rm -rf "$prefix" "$fallback" && mkdir -p "$prefix" "$fallback"
for f in "${debs[@]}"; do dpkg-deb -x "$f" "$prefix"; done
have=$(ldconfig -p 2>/dev/null | awk '{print $1}' | sort -u)
n=0
for lib in "$prefix"/usr/lib/x86_64-linux-gnu/*.so.* "$prefix"/lib/x86_64-linux-gnu/*.so.*; do
  [ -e "$lib" ] || continue
  name=$(basename "$lib")
  grep -qx "$name" <<<"$have" && continue
  ln -sf "$lib" "$fallback/$name" && n=$((n + 1))
done
export LD_LIBRARY_PATH=$fallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "${#debs[@]} packages unpacked; $n library files not in the loader cache linked into $fallback"

phase "build against PyTorch's libtorch"
if [ -z "$rehearsal" ]; then
  torch=(-DCMAKE_PREFIX_PATH="$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)');$prefix/usr")
else
  torch=(-DCMAKE_PREFIX_PATH="$prefix/usr" -DMILABENCH_TORCH_DEB_ROOT="$rehearsal")
fi
targets=(${GPU_CHECK_TARGETS:-milarun milarun-torch workload_tests})
build=$work/build
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
# The machine's pkg-config, else Debian's pkgconf from the prefix (always with GPU_CHECK_PKG_CONFIG=bundled).
pc=$(command -v pkg-config || true)
[ -z "$pc" ] || [ "${GPU_CHECK_PKG_CONFIG:-}" = bundled ] && pc=$prefix/usr/bin/pkgconf
export PKG_CONFIG_LIBDIR=$prefix/usr/lib/x86_64-linux-gnu/pkgconfig:$prefix/usr/share/pkgconfig
export PKG_CONFIG_SYSROOT_DIR=$prefix
libs=$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu
if ! cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
       "${torch[@]}" -DCMAKE_LIBRARY_ARCHITECTURE=x86_64-linux-gnu \
       -DOPENSSL_ROOT_DIR="$prefix/usr" -DPKG_CONFIG_EXECUTABLE="$pc" \
       -DCMAKE_CXX_FLAGS="-isystem $prefix/usr/include -isystem $prefix/usr/include/x86_64-linux-gnu" \
       -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$libs" -DCMAKE_SHARED_LINKER_FLAGS="-Wl,-rpath-link,$libs" \
       >"$work/cmake.log" 2>&1; then
  tail -40 "$work/cmake.log"
  fail "cmake configure failed (log above)"
  exit 1
fi
grep -E 'Found Torch|libtorch from|CUDA|NCCL' "$work/cmake.log" | head -5
if ! timeout "${GPU_CHECK_BUILD_TIMEOUT:-330}" cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >"$work/build.log" 2>&1; then
  grep -E 'error|Error' "$work/build.log" | head -40
  fail "build failed"
  exit 1
fi
echo "built: ${targets[*]}"
if [ "$build_only" = 1 ]; then
  phase "built against ${rehearsal:-the PyTorch libtorch}; the rest needs the GPU"
  exit $status
fi

phase "mixed-precision and CUDA tests"
filter='LossScale*:LossScaler*:Fp16MasterWeights*:ClipGradNorm*:AutocastScope*:TorchCompat*:*Cuda*:DataParallelGroup*'
timeout 90 "$build"/workload_tests --gtest_filter="$filter" 2>&1 | tee "$OUT/cuda-tests.txt" | grep -E '^\[|skipped'
[ "${PIPESTATUS[0]}" = 0 ] || fail "workload_tests failed"
grep -q 'skipped: no CUDA' "$OUT/cuda-tests.txt" && fail "a CUDA test was skipped on a GPU machine"

phase "datasets of profiles/standard.json at --scale $scale"
data=$work/data
timeout 90 "$build"/milarun dataset --profile profiles/standard.json -d "$data" --scale "$scale" | tail -3 ||
  fail "dataset generation failed"

phase "every test of profiles/standard.json, --max-count / $divisor"
profile=$work/standard-cut.json
"$py" - "$divisor" >"$profile" <<'EOF'
import json, sys
div = int(sys.argv[1])
p = json.load(open("profiles/standard.json"))
# The device has no `nocache` and the check measures nothing to compare:
# no exec prefix, no page-cache drop between tests.
for t in p.values():
    if isinstance(t, dict):
        t.pop("exec_prefix", None)
        t.pop("prepare", None)
for name, t in p.items():
    a = t.get("arguments") if isinstance(t, dict) else None
    if not a or "--max-count" not in a:
        continue
    batch = int(a.get("--batch-size", 1))
    a["--max-count"] = max(min(a["--max-count"], 10 * batch), a["--max-count"] // div)
json.dump(p, sys.stdout, indent=2)
EOF
results=$work/results
rm -rf "$results"
# What is left of 8 minutes, less about 80 s for the NCCL run and the report.
left=$((480 - 80 - ($(date +%s) - t0)))
[ "$left" -ge 60 ] || left=60
echo "time left for the profile: $left s"
timeout "$left" "$build"/milarun jobs "$profile" -d "$data" -o "$results" --no-cgexec --max-duration 60 ||
  fail "milarun jobs reported failed runs (or ran out of time)"

phase "scaling as a one-rank NCCL process group"
timeout 60 "$build"/milarun run scaling -d "$data" -o "$OUT/scaling-nccl.json" -- --cuda --max-count 3200 \
  --distributed-dataparallel --rank 0 --world-size 1 --dist-url tcp://127.0.0.1:29517 --dist-backend nccl ||
  fail "scaling over NCCL failed"

phase "report"
"$build"/milarun summary "$results" -o "$OUT/summary.json" || fail "summary failed"
"$build"/milarun report "$results" --weights weights/standard.json --html "$OUT/report.html" | tee "$OUT/report.txt" ||
  fail "report failed"
tar -czf "$OUT/results.tar.gz" -C "$work" results 2>/dev/null || true
phase "done: status $status"
exit $status
