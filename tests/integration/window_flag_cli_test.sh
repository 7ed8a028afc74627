#!/usr/bin/env bash
# The summary-window flag on a short real run: polynome stopped by --max-count after a few slices
# is listed by `milarun report` (text and HTML) as too short for rates[-20:-2].
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$MILARUN" run polynome -o "$work/res/" --experiment-name s.short --job-id 0.0 -- --max-count 1_000_000 \
  2> "$work/run.log" || { cat "$work/run.log"; fail "run"; }
slices=$(python3 -c "import glob,json; f=glob.glob('$work/res/s.short.J0.0.*.json')[0]; print(len(json.load(open(f))['timings']['train']['rates']))")
[ "$slices" -lt 20 ] || fail "1M samples took $slices slices (>= 20): the run is not short on this machine"
"$MILARUN" report "$work/res" --html "$work/report.html" > "$work/report.txt" 2> "$work/report.err" || fail "report"
grep -q "runs whose summary window" "$work/report.txt" || fail "no flag section in the text report"
grep -q "s.short  s.short.J0.0.*: only $slices slices" "$work/report.txt" || { cat "$work/report.txt"; fail "short run not flagged"; }
grep -q "only $slices slices" "$work/report.html" || fail "short run not flagged in the HTML page"
grep -q "1 run flagged" "$work/report.html" || fail "results table does not count the flagged run"
echo "window_flag_cli_test: passed ($slices slices)"
