#!/usr/bin/env bash
# Fetches, here (with network), the Debian 12 packages scripts/gpu-check.sh
# builds against on a GPU machine that has PyTorch but none of our -dev
# packages and no network. Only `apt-get download` (through a private apt
# state: the system's sources list and dpkg database are read, not changed);
# the .deb files land in .deps/gpu-check/debs (ignored by git) and travel with
# the working tree as the device tool's `carry` path .deps/gpu-check. Nothing is
# installed here; gpu-check.sh unpacks them with dpkg -x into a prefix there.
#
# The list: every -dev package CMakeLists.txt finds besides libtorch, and the
# shared libraries our programs link; scripts/deb_closure.py then adds, by
# shared-library name (readelf NEEDED), every library those need that is
# neither in the set nor the C/C++ runtime any Linux with PyTorch has (e.g.
# OpenCV's libGLX.so.0 and its X11/xcb closure). `scripts/deb_closure.py check
# .deps/gpu-check` verifies the result; scripts/test.sh runs both.
# gpu-check.sh only puts a library on the search path when the machine lacks it.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${GPU_FETCH_DEST:-.deps/gpu-check}
apt_dir=.deps/apt-bookworm
pkgs=(
  # headers, CMake configs, static test libraries
  nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev libgmock-dev libturbojpeg0-dev libjpeg62-turbo-dev
  libhwloc-dev libcurl4-openssl-dev libssl-dev libarchive-dev libopencv-core-dev libopencv-imgproc-dev
  pkgconf pkgconf-bin libpkgconf3 libsqlite3-dev libpq-dev
  # the shared libraries our programs link (their own needs come from deb_closure.py)
  libfmt9 libturbojpeg0 libjpeg62-turbo libhwloc15 libcurl4 libssl3 libarchive13 libopencv-core406
  libopencv-imgproc406 libsqlite3-0 libpq5
)
mkdir -p "$apt_dir"/{lists/partial,cache/archives/partial} "$dest"
touch "$apt_dir/status"
# The system's Debian 12 sources (the registry this project installs from).
apt_opts=(-o "Dir::State::Lists=$PWD/$apt_dir/lists" -o "Dir::Cache=$PWD/$apt_dir/cache"
          -o "Dir::State::status=$PWD/$apt_dir/status" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" -qq update
python3 scripts/deb_closure.py fetch "$dest" "${apt_opts[@]}" -- "${pkgs[@]}"
python3 scripts/deb_closure.py check "$dest"
echo "gpu-fetch: $(wc -l <"$dest/packages.txt") packages, $(du -sh "$dest" | cut -f1) in $dest (carry it: the limit is" \
     "64 MiB with the working tree)"
