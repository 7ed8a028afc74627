#!/usr/bin/env bash
# Makes the Dockerfile's base image, debian:bookworm, where no image registry is
# reachable but Debian's package mirror is: a minimal Debian 12 root made with
# debootstrap (--variant=minbase), given the same apt sources as the official
# image, imported into the engine. Run as root (apt-get install debootstrap).
#   scripts/docker-base.sh [ENGINE]    # ENGINE: docker or podman (default podman)
# Env: MIRROR (default http://deb.debian.org/debian), DOCKER_BASE_ROOT (the root
# folder, default /var/tmp/milabench-bookworm-root; kept for a second import).
set -euo pipefail
engine=${1:-podman}
mirror=${MIRROR:-http://deb.debian.org/debian}
root=${DOCKER_BASE_ROOT:-/var/tmp/milabench-bookworm-root}
command -v debootstrap >/dev/null || { echo "docker-base: no debootstrap (apt-get install debootstrap)" >&2; exit 1; }
if [ ! -x "$root/usr/bin/apt-get" ]; then
  rm -rf "$root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.log" 2>&1 ||
    { tail -5 "$root.log"; echo "docker-base: debootstrap failed ($root.log)" >&2; exit 1; }
  rm -f "$root/etc/apt/sources.list"
  cat > "$root/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: ${mirror}
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror}-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
fi
tar -C "$root" -c . | "$engine" import --change 'CMD ["bash"]' - debian:bookworm
echo "docker-base: debian:bookworm imported into $engine from $root"
