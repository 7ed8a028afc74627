#!/usr/bin/env bash
# The main job on a fresh machine: installs, builds, makes the default data
# when absent, runs the default suite for this machine and prints the report
# (and writes report.html next to the results).
#   GPUs found  -> profiles/standard.json with weights/standard.json
#   no GPU      -> profiles/cpu.json (about 10 minutes on 2 cores)
# Override with PROFILE=..., WEIGHTS=..., MILARUN_DATAROOT=..., OUTDIR=...
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
if ls /proc/driver/nvidia/gpus/* > /dev/null 2>&1; then suite=standard; else suite=cpu; fi
PROFILE=${PROFILE:-profiles/$suite.json}
WEIGHTS=${WEIGHTS:-weights/$suite.json}
DATAROOT=${MILARUN_DATAROOT:-$PWD/data}
OUTDIR=${OUTDIR:-$PWD/results-$(date '+%Y-%m-%d.%H:%M:%S')}
build/milarun dataset --profile "$PROFILE" -d "$DATAROOT"
status=0
build/milarun jobs "$PROFILE" -d "$DATAROOT" -o "$OUTDIR" || status=$?
build/milarun report "$OUTDIR" --weights "$WEIGHTS" --html "$OUTDIR/report.html"
echo "results: $OUTDIR (report.html inside)"
exit $status
