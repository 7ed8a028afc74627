#!/usr/bin/env bash
# Builds the torch side against PyTorch 2.x with CUDA and NCCL, laid out as
# PyTorch's pip wheel is (the libtorch GPU users have): Debian 13 (trixie)
# contrib's libtorch-cuda-dev 2.6 plus the CUDA toolkit's headers
# (MILABENCH_CUDA_HOME, default /usr/local/cuda: cuda_runtime_api.h, nccl.h),
# with the wheel's two build traps reproduced (docs/gpu.md, "Three layouts"):
#   - a bundled fmt of another version than the system's: trixie's fmt 10
#     headers copied into the torch include tree (torch/include/fmt in the
#     wheel, fmt 12 there; Debian 12's own is 9). A build that mixes the two
#     fails to link (undefined fmt::v10 symbols).
#   - no Gloo headers: the torch tree has none, and every gloo/*.h that
#     Debian 12's libgloo-dev puts in /usr/include is shadowed by a header
#     that is an #error. A build that includes Gloo unconditionally fails.
# The third trap, OpenCV's libGLX closure, is checked by
# scripts/deb_closure.py on what gpu-fetch.sh fetches (scripts/test.sh).
# Every torch-facing file is compiled (milabench_workloads, milarun-torch's
# sources) and milarun-torch is linked, at -O0 (nothing built here runs: the
# check is the compile and the link), and the workload tests are checked with
# -fsyntax-only; then data_parallel.cpp is compiled once more with trixie's Gloo
# headers (-fsyntax-only), so the Gloo path of 2.x stays compiled too. The
# programs need trixie's glibc and CUDA 12 libraries to run, so they are not
# run here. Called by scripts/test.sh after the Debian 12 (libtorch 1.13)
# build and tests.
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
gloo_root=$deps/gloo2.6
poison=$deps/pip-traps
build=${TORCH2_BUILD_DIR:-build-torch2}
link=${TORCH2_LINK:-1}
cuda=${MILABENCH_CUDA_HOME:-/usr/local/cuda}

pkgs=(libtorch-cuda-dev libgloo-cuda-dev libfmt-dev)
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

want="pip-layout-1 $(printf '%s\n' "${pkgs[@]}" | sort | tr '\n' ' ')"
if [ "$(cat "$root/.packages" 2>/dev/null)" != "$want" ]; then
  apt-get "${apt_opts[@]}" -qq update
  rm -rf "$root" "$gloo_root" "$poison" "$apt_dir/debs"/*.deb
  (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}")
  mkdir -p "$root" "$gloo_root"
  for f in "$apt_dir/debs"/*.deb; do
    case $(basename "$f") in
      libgloo-cuda-dev_*) dpkg -x "$f" "$gloo_root" ;;  # kept apart: the wheel has no Gloo headers
      libfmt-dev_*) fmt_deb=$f ;;
      *) dpkg -x "$f" "$root" ;;
    esac
  done
  # The wheel's bundled fmt: headers inside the torch include tree.
  tmp=$(mktemp -d)
  dpkg -x "$fmt_deb" "$tmp"
  cp -r "$tmp/usr/include/fmt" "$root/usr/include/fmt"
  rm -rf "$tmp"
  rm -f "$apt_dir/debs"/*.deb
  # Every gloo header name shadowed by an #error, before the system's.
  (cd "$gloo_root/usr/include" && find gloo -name '*.h') | while read -r h; do
    mkdir -p "$poison/$(dirname "$h")"
    echo "#error \"<$h>: PyTorch's pip wheel ships no Gloo headers; include Gloo only under MILABENCH_HAVE_GLOO\"" \
      >"$poison/$h"
  done
  echo "$want" >"$root/.packages"
fi
fetched=$(date +%s)
if [ "${TORCH2_FETCH_ONLY:-0}" = 1 ]; then
  echo "build-torch2: fetched ${want} into $root in $((fetched - start)) s"
  exit 0
fi

# -Werror=deprecated-declarations: no deprecated libtorch call may remain.
# -O0: the objects are only linked, never run, and -O0 compiles torch code faster.
# MILABENCH_UNITY_TORCH: the torch-facing files in batches (torch's templates
# instantiated once a batch, CMakeLists.txt), about half the compile time.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=None -DMILABENCH_TORCH_DEB_ROOT="$root" -DMILABENCH_UNITY_TORCH=ON \
      -DMILABENCH_CUDA_HOME="$cuda" -DCMAKE_CXX_FLAGS="-O0 -Werror=deprecated-declarations -isystem $poison" \
      ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER} \
      >"$deps/build-torch2.cmake.log"
grep -E '^-- (libtorch from|fmt:|Gloo)' "$deps/build-torch2.cmake.log" || true
grep -q '^-- fmt: .*bundled with libtorch' "$deps/build-torch2.cmake.log" ||
  { echo "build-torch2: the bundled fmt was not chosen (cmake/TorchLayout.cmake)" >&2; exit 1; }
grep -q '^-- Gloo (c10d gloo backend): OFF' "$deps/build-torch2.cmake.log" ||
  { echo "build-torch2: Gloo was found in a tree without Gloo headers (cmake/TorchLayout.cmake)" >&2; exit 1; }
if [ "$link" = 1 ]; then
  targets=(milarun-torch)
else
  targets=(milabench_workloads)
fi
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

# The workload tests (the CUDA-only ones among them) against 2.x's API:
# checked with -fsyntax-only (every declaration and template resolved, no code
# generated: they cannot run here), with milabench_workloads' precompiled
# torch header, nproc at a time: the unity batches of workload_tests and the
# test files compiled alone (the parity tests, with their own definitions).
python3 - "$build/compile_commands.json" "$(nproc)" <<'PY'
import concurrent.futures, json, shlex, subprocess, sys
db, jobs = sys.argv[1], int(sys.argv[2])
entries = [e for e in json.load(open(db))
           if "/tests/workloads/" in e["file"] or "/workload_tests.dir/Unity/" in e["file"]]
def check(e):
    args = shlex.split(e["command"])
    out = args.index("-o")
    del args[out:out + 2]
    args = [a for a in args if a != "-c"] + ["-fsyntax-only"]
    r = subprocess.run(args, cwd=e["directory"], capture_output=True, text=True)
    return e["file"], r.returncode, r.stderr
failed = 0
with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    for f, rc, err in pool.map(check, entries):
        if rc != 0:
            failed += 1
            print(f"build-torch2: {f} does not compile against 2.x:\n{err}", file=sys.stderr)
if failed or not entries:
    sys.exit(f"build-torch2: {failed} of {len(entries)} workload test files failed the 2.x syntax check")
batches = sum("/Unity/" in e["file"] for e in entries)
print(f"build-torch2: the workload tests compile against 2.x (-fsyntax-only): {batches} unity batches "
      f"and {len(entries) - batches} files alone")
PY

# The Gloo path of data_parallel.cpp against 2.x's c10d, with trixie's Gloo headers.
python3 - "$build/compile_commands.json" "$poison" "$gloo_root/usr/include" <<'PY'
import json, shlex, subprocess, sys
db, poison, gloo = sys.argv[1:4]
entry = next(e for e in json.load(open(db)) if e["file"].endswith("src/training/data_parallel.cpp"))
args = shlex.split(entry["command"])
out = args.index("-o")
del args[out:out + 2]
args = [gloo if a == poison else a for a in args]
args = [a for a in args if a != "-c"] + ["-fsyntax-only", "-DMILABENCH_HAVE_GLOO=1"]
subprocess.run(args, cwd=entry["directory"], check=True)
print("build-torch2: data_parallel.cpp's Gloo path compiles against 2.x with Gloo headers")
PY
end=$(date +%s)
v=$(awk '/define TORCH_VERSION_(MAJOR|MINOR|PATCH)/ {printf "%s%s", sep, $3; sep="."}' \
  "$root/usr/include/torch/csrc/api/include/torch/version.h")
echo "build-torch2: libtorch $v (CUDA, NCCL) in the pip layout: built ${targets[*]} in $((end - start)) s" \
     "(fetch and unpack $((fetched - start)) s)"
