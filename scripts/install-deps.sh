#!/usr/bin/env bash
# Installs every build and test dependency from Debian 12 packages. Idempotent; run as root.
set -euo pipefail
pkgs=(cmake g++ make libtorch-dev libgloo-dev nlohmann-json3-dev libcli11-dev libfmt-dev
      libgtest-dev libgmock-dev libbenchmark-dev libturbojpeg0-dev libopenblas0-pthread
      libhwloc-dev libcurl4-openssl-dev libarchive-dev libssl-dev
      libopencv-imgproc-dev pkg-config nocache python3
      slurm-wlm munge  # slurm-wlm, munge: tests/integration/slurm_cli_test.sh starts a one-node cluster
      chromium)        # tests/integration/html_render_test.sh renders report.html headless
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
echo "install-deps: all ${#pkgs[@]} packages present"
