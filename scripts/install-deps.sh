#!/usr/bin/env bash
# Installs the dependencies from Debian 12 packages. Idempotent; run as root.
#   scripts/install-deps.sh                 # everything: build, tools, test
#   scripts/install-deps.sh build [tools]   # only those groups (the Dockerfile's stages)
# Groups:
#   build  what CMakeLists.txt finds to build milarun and milarun-torch
#   tools  programs the profiles call at run time: nocache (exec_prefix), sysctl (prepare)
#   test   what the tests and benchmarks need besides build and tools
set -euo pipefail
build=(cmake g++ make ninja-build libtorch-dev libgloo-dev nlohmann-json3-dev libcli11-dev libfmt-dev
       libgtest-dev libgmock-dev libturbojpeg0-dev libopenblas0-pthread
       libhwloc-dev libcurl4-openssl-dev libarchive-dev libssl-dev
       libjpeg62-turbo-dev libopencv-imgproc-dev pkg-config
       libsqlite3-dev libpq-dev)  # the results store (docs/history.md)  # gtest/gmock: CMakeLists.txt requires them to configure
tools=(nocache procps)
test=(python3 libbenchmark-dev
      python3-torch python3-torchvision  # the eager twins in bench/python (ctest gpu_twins_dry)
      slurm-wlm munge  # slurm-wlm, munge: tests/integration/slurm_cli_test.sh starts a one-node cluster
      chromium         # tests/integration/html_render_test.sh renders report.html headless
      postgresql)      # tests/integration/store_pg_test.sh starts its own server (initdb, pg_ctl)
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build tools test)
pkgs=()
for g in "${groups[@]}"; do
  case $g in
    build) pkgs+=("${build[@]}") ;;
    tools) pkgs+=("${tools[@]}") ;;
    test) pkgs+=("${test[@]}") ;;
    *) echo "install-deps: unknown group '$g' (build, tools, test)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then echo "install-deps: run as root to install: ${missing[*]}" >&2; exit 1; fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "install-deps: all ${#pkgs[@]} packages present (${groups[*]})"
