#!/usr/bin/env bash
# The data step of the original (its scripts/download.sh): every dataset the
# standard profile uses, under DATAROOT, recorded in DATAROOT/MANIFEST.json
# (real or synthetic, scale, when).
#
#   scripts/download.sh -d DATAROOT [--scale S] [--download] [--profile P] [--milarun PATH]
#
# Without --download every dataset is generated in the real layout (offline;
# --scale S in (0, 1] is the fraction of the real size, default 1). With
# --download the real files are fetched where the dataset table has a source
# (`milarun list` shows which) and verified; a dataset whose download fails
# (no network, say) or that has no source is generated instead. Datasets
# already present are kept, so a second call only makes what is missing.
# Exit status: 0 when every dataset is present at the end, else 1 (2 on bad
# usage).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dataroot=${MILARUN_DATAROOT:-}
scale=1
download=0
profile=$here/profiles/standard.json
milarun=${MILARUN:-$here/build/milarun}
usage() { echo "usage: $0 -d DATAROOT [--scale S] [--download] [--profile P] [--milarun PATH]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    -d|--dataroot) [ $# -ge 2 ] || usage; dataroot=$2; shift 2 ;;
    --scale) [ $# -ge 2 ] || usage; scale=$2; shift 2 ;;
    --download) download=1; shift ;;
    --profile) [ $# -ge 2 ] || usage; profile=$2; shift 2 ;;
    --milarun) [ $# -ge 2 ] || usage; milarun=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "$0: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$dataroot" ] || { echo "$0: no data root: pass -d DATAROOT (or set MILARUN_DATAROOT)" >&2; exit 2; }
[ -x "$milarun" ] || { echo "$0: $milarun is not built; run: cmake -S . -B build && cmake --build build --target milarun (or pass --milarun PATH)" >&2; exit 2; }

if [ $download = 1 ]; then
  # Failures are reported by milarun (one line each); what is still missing is generated below.
  "$milarun" dataset --profile "$profile" -d "$dataroot" --scale "$scale" --download \
    || echo "download.sh: some datasets were not downloaded (see above); what is missing is generated in the real layout" >&2
fi
"$milarun" dataset --profile "$profile" -d "$dataroot" --scale "$scale" || exit 1
echo "download.sh: datasets of $(basename "$profile") under $dataroot (provenance: $dataroot/MANIFEST.json)"
