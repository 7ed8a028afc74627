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
# shared libraries they need at run time (the closure of libcurl, libarchive,
# OpenCV, hwloc below libc/libstdc++/zlib, which any Linux with PyTorch has).
# gpu-check.sh only puts a library on the search path when the machine lacks it.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.deps/gpu-check
apt_dir=.deps/apt-bookworm
pkgs=(
  # headers, CMake configs, static test libraries
  nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev libgmock-dev libturbojpeg0-dev libjpeg62-turbo-dev
  libhwloc-dev libcurl4-openssl-dev libssl-dev libarchive-dev libopencv-core-dev libopencv-imgproc-dev
  pkgconf pkgconf-bin libpkgconf3
  # run-time libraries of the above
  libfmt9 libturbojpeg0 libjpeg62-turbo libhwloc15 libnuma1 libcurl4 libnghttp2-14 librtmp1 libssh2-1 libpsl5
  libbrotli1 libldap-2.5-0 libsasl2-2 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libkeyutils1
  libcom-err2 libidn2-0 libunistring2 libgnutls30 libhogweed6 libnettle8 libgmp10 libp11-kit0 libtasn1-6 libffi8
  libssl3 libarchive13 libxml2 libicu72 liblz4-1 libacl1 libopencv-core406 libopencv-imgproc406 libtbb12
  libtbbmalloc2 liblapack3 libblas3 libgfortran5 libquadmath0
)
mkdir -p "$apt_dir"/{lists/partial,cache/archives/partial} "$dest/debs"
touch "$apt_dir/status"
# The system's Debian 12 sources (the registry this project installs from).
apt_opts=(-o "Dir::State::Lists=$PWD/$apt_dir/lists" -o "Dir::Cache=$PWD/$apt_dir/cache"
          -o "Dir::State::status=$PWD/$apt_dir/status" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" -qq update
rm -f "$dest/debs"/*.deb
(cd "$dest/debs" && apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}")
printf '%s\n' "${pkgs[@]}" | sort >"$dest/packages.txt"
echo "gpu-fetch: ${#pkgs[@]} packages, $(du -sh "$dest" | cut -f1) in $dest (carry it: the limit is 64 MiB" \
     "with the working tree)"
