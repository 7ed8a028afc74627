#!/usr/bin/env bash
# Installs, builds, runs the default suite for this machine and prints the
# report (HTML too). Until `milarun jobs` lands (issue 2), the suite is every
# workload of this build run once through `milarun run` on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
DATAROOT=${MILARUN_DATAROOT:-$PWD/data}
OUTDIR=${OUTDIR:-$PWD/results-$(date '+%Y-%m-%d.%H:%M:%S')}
mkdir -p "$DATAROOT" "$OUTDIR"
status=0
build/milarun run polynome -d "$DATAROOT" -o "$OUTDIR/" --experiment-name cpu.toy_reg --job-id 0.0 \
  -- --poly-degree 4 --batch-size 256 --max-count 20000000 || status=$?
build/milarun report "$OUTDIR" --weights weights/cpu.json --html "$OUTDIR/report.html"
echo "results: $OUTDIR (report.html inside)"
exit $status
