#!/usr/bin/env bash
# The device check, first command (docs/gpu.md), for a GPU machine that has
# PyTorch (python3 -c 'import torch'), CMake, a C++ compiler and no network:
#   1. unpacks the Debian 12 .debs that scripts/gpu-fetch.sh fetched into
#      .deps/gpu-check (carry that path) into a prefix with dpkg -x; a library
#      of theirs goes on the loader's path only when the machine lacks it;
#   2. builds milarun, milarun-torch and workload_tests against that PyTorch's
#      libtorch (torch.utils.cmake_prefix_path) exactly as docs/gpu.md tells a
#      GPU user to: CUDA, NCCL, torch 2.x, its bundled fmt, no Gloo headers;
#   3. runs every CUDA test, each in a process of its own (a crash names
#      itself and the others still run); a skip fails the check;
#   4. scaling as a one-rank NCCL process group (--distributed-dataparallel);
#   5. makes the standard profile's datasets at a small --scale and runs the
#      profile's tests on the GPU (`milarun jobs`, window rule on: every run
#      goes on past its count until its summary window holds only steady
#      slices), GPU-heavy tests first, with --max-count divided by
#      GPU_CHECK_DIVISOR (default 4: the whole profile then fits the
#      command's 10 minutes with the build; 1 = the profile's full counts);
#      tests that no longer fit in GPU_CHECK_BUDGET seconds are listed, not run;
#   6. the report (text, HTML, summary) against the 2020 V100 baseline.
# Everything goes under $OUT (8 files at most come back): gpu-check.log,
# cuda-tests.txt, report.txt, report.html, summary.json, scaling-nccl.json,
# results.tar.gz. The built tree, data and results stay in GPU_CHECK_WORK for
# the second command (scripts/gpu-twins.sh), with env.sh to source.
# Exit status: 0 when every step passed and every run succeeded.
# Env: OUT (default ./gpu-check-out), GPU_CHECK_WORK (default /tmp/gpu-check),
#      GPU_CHECK_DIVISOR, GPU_CHECK_SCALE (dataset scale, default 0.02),
#      GPU_CHECK_BUDGET (seconds for the whole script, default 560), PYTHON,
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
divisor=${GPU_CHECK_DIVISOR:-4}
scale=${GPU_CHECK_SCALE:-0.02}
budget=${GPU_CHECK_BUDGET:-560}
py=${PYTHON:-python3}
mkdir -p "$OUT" "$work"
exec > >(tee "$OUT/gpu-check.log") 2>&1
t0=$(date +%s)
status=0
phase() { echo; echo "== $(($(date +%s) - t0)) s: $*"; }
fail() { echo "gpu-check: $*"; status=1; }
left() { echo $((budget - ($(date +%s) - t0))); }

rehearsal=${GPU_CHECK_TORCH_DEB_ROOT:-}
build_only=${GPU_CHECK_BUILD_ONLY:-0}
[ -z "$rehearsal" ] || build_only=1
phase "machine"
if [ -z "$rehearsal" ]; then
  [ "$build_only" = 1 ] || nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || fail "nvidia-smi found no GPU"
  "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count(),
"nccl", ".".join(map(str, torch.cuda.nccl.version())) if torch.cuda.is_available() else "-", "cudnn", torch.backends.cudnn.version())' ||
    { fail "$py cannot import torch"; exit 1; }
fi
for tool in cmake c++ dpkg-deb; do command -v $tool >/dev/null || { fail "$tool is not on PATH"; exit 1; }; done
echo "cmake $(cmake --version | head -1 | cut -d' ' -f3), $(c++ --version | head -1), $(nproc) CPUs"
# Each core's threads (docs/isolation.md, "Whole cores"): the partitions keep them in one set.
echo "cores (thread_siblings_list): $(sort -u /sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list 2>/dev/null | sort -n | tr '\n' ' ')"

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
echo "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >"$work/env.sh"
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
grep -E 'Found Torch|libtorch from|-- fmt:|-- Gloo|-- nccl.h|CUDA' "$work/cmake.log" | head -8
if ! timeout "${GPU_CHECK_BUILD_TIMEOUT:-330}" cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" -- -k 0 >"$work/build.log" 2>&1; then
  grep -E 'error|Error|undefined' "$work/build.log" | head -40
  fail "build failed"
  exit 1
fi
echo "built: ${targets[*]} in $(($(date +%s) - t0)) s since the start"
if [ "$build_only" = 1 ]; then
  phase "built against ${rehearsal:-the PyTorch libtorch}; the rest needs the GPU"
  exit $status
fi

phase "mixed-precision and CUDA tests, one process each"
: >"$OUT/cuda-tests.txt"
filter='LossScale*:LossScaler*:ApexFp16Step*:Fp16MasterWeights*:ClipGradNorm*:AutocastScope*:TorchCompat*:*Cuda*:DataParallelGroup*:ScalingWorkload*'
tests=$("$build"/workload_tests --gtest_list_tests --gtest_filter="$filter" |
        awk '/^[^ ]/ {suite=$1} /^  / {print suite $1}')
for t in $tests; do
  timeout 120 "$build"/workload_tests --gtest_filter="$t" >"$work/one-test.txt" 2>&1
  rc=$?
  cat "$work/one-test.txt" >>"$OUT/cuda-tests.txt"
  if [ $rc != 0 ]; then
    fail "$t: exit $rc"
    grep -E 'Failure|error|fatal signal|Expected|Which is|^ *\[|\.so|milabench' "$work/one-test.txt" | head -30
  elif grep -q 'skipped: no CUDA' "$work/one-test.txt"; then
    fail "$t was skipped on a GPU machine: $(grep -m1 -o 'skipped.*' "$work/one-test.txt")"
  elif grep -q 'skipped' "$work/one-test.txt"; then
    echo "--  $t $(grep -m1 -o 'skipped.*' "$work/one-test.txt")"
  else
    echo "ok  $t $(grep -o '([0-9]* ms)' "$work/one-test.txt" | tail -1)"
  fi
done

phase "datasets of profiles/standard.json at --scale $scale"
data=$work/data
timeout 120 "$build"/milarun dataset --profile profiles/standard.json -d "$data" --scale "$scale" | tail -3 ||
  fail "dataset generation failed"

phase "scaling as a one-rank NCCL process group (window rule: the vote is read on check steps only)"
timeout 90 "$build"/milarun run scaling -d "$data" -o "$OUT/scaling-nccl.json" -- --cuda --max-count 3200 \
  --distributed-dataparallel --rank 0 --world-size 1 --dist-url tcp://127.0.0.1:29517 --dist-backend nccl ||
  fail "scaling over NCCL failed"
"$py" - "$OUT/scaling-nccl.json" <<'EOF' || fail "scaling over NCCL: bad result"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["timings"]["train_0"] if "train_0" in r["timings"] else r["timings"]["train"]
m = r.get("metrics", {})
print("success", r["success"], "| count", t["count"], "| extended_s", round(t.get("extended_s", 0), 1),
      "| vote reads", m.get("stop_vote_reads"), "| buckets", m.get("gradient_buckets"),
      "| collectives", r.get("distributed", {}).get("collectives"))
inv = r.get("inventory", {})  # NVML's readings of the machine's configuration (docs/gpu.md: unverified until here)
print("gpus", inv.get("gpus"), "| power limits", inv.get("gpu_power_limits"), "| mig", inv.get("gpu_mig"))
assert r["success"], r.get("error")
EOF

phase "the standard profile on the GPU, --max-count / $divisor, window rule on ($(left) s left)"
profile=$work/standard-check.json
"$py" - "$divisor" >"$profile" <<'EOF'
import json, sys
div = int(sys.argv[1])
p = json.load(open("profiles/standard.json"))
# GPU-heavy tests first (the eager twins compare those), the CPU-bound ones last.
first = ["convnet", "convnet_fp16", "dcgan", "fast_style", "ssd", "translator", "wlm", "wlmfp16", "vae", "reso",
         "loader", "recom", "scaling", "toy_reg", "cart", "toy_lstm", "minigrid", "atari"]
order = ["*"] + [k for k in first if k in p] + [k for k in p if k not in first and k != "*"]
q = {}
for name in order:
    t = p[name]
    if isinstance(t, dict):
        t.pop("exec_prefix", None)  # the device has no `nocache`; nothing is compared across page caches here
        t.pop("prepare", None)
        a = t.get("arguments")
        if a and "--max-count" in a and div > 1:
            a["--max-count"] = max(1, a["--max-count"] // div)
    q[name] = t
json.dump(q, sys.stdout, indent=2)
EOF
results=$work/results
rm -rf "$results"
tests=$("$py" -c 'import json,sys; print(" ".join(k for k in json.load(open(sys.argv[1])) if k != "*"))' "$profile")
skipped=()
for t in $tests; do
  l=$(left)
  if [ "$l" -lt 45 ]; then skipped+=("$t"); continue; fi
  cap=$((l - 25 < 90 ? l - 25 : 90))
  timeout $((cap + 15)) "$build"/milarun jobs "$profile" -d "$data" -o "$results" --no-cgexec --name "$t" \
    --max-duration "$cap" >"$work/jobs-$t.log" 2>&1
  grep -E ' (OK|FAIL)' "$work/jobs-$t.log" || tail -3 "$work/jobs-$t.log"
  grep -q ' FAIL' "$work/jobs-$t.log" && fail "$t: a run failed (log: $(grep -m1 -o 'logs/[^ ]*' "$work/jobs-$t.log"))"
done
[ ${#skipped[@]} = 0 ] || { echo "not run (the budget of $budget s was spent): ${skipped[*]}"; status=1; }

phase "report"
"$build"/milarun summary "$results" -o "$OUT/summary.json" || fail "summary failed"
"$build"/milarun report "$results" --weights weights/standard.json --compare baselines/standard/v100.json \
  --html "$OUT/report.html" | tee "$OUT/report.txt" || fail "report failed"
tar -czf "$OUT/results.tar.gz" -C "$work" results 2>/dev/null || true
phase "done: status $status"
exit $status
