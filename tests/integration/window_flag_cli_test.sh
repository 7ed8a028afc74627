#!/usr/bin/env bash
# The summary-window flag on a short real run: polynome stopped by --max-count after a few slices
# (--stop-at-count, the original's stop) is listed by `milarun report` (text and HTML) as too
# short for rates[-20:-2]. Then the default, the window rule: the same short count goes on until
# the window holds only steady slices; the result records by how much and the report says so.
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$MILARUN" run polynome -o "$work/res/" --experiment-name s.short --job-id 0.0 -- --stop-at-count --max-count 1_000_000 \
  2> "$work/run.log" || { cat "$work/run.log"; fail "run"; }
slices=$(python3 -c "import glob,json; f=glob.glob('$work/res/s.short.J0.0.*.json')[0]; print(len(json.load(open(f))['timings']['train']['rates']))")
[ "$slices" -lt 20 ] || fail "1M samples took $slices slices (>= 20): the run is not short on this machine"
"$MILARUN" report "$work/res" --html "$work/report.html" > "$work/report.txt" 2> "$work/report.err" || fail "report"
grep -q "runs whose summary window" "$work/report.txt" || fail "no flag section in the text report"
grep -q "s.short  s.short.J0.0.*: only $slices slices" "$work/report.txt" || { cat "$work/report.txt"; fail "short run not flagged"; }
grep -q "only $slices slices" "$work/report.html" || fail "short run not flagged in the HTML page"
grep -q "1 run flagged" "$work/report.html" || fail "results table does not count the flagged run"

"$MILARUN" run polynome -o "$work/rule/" --experiment-name s.rule --job-id 0.0 -- --max-count 1_000_000 \
  2> "$work/rule.log" || { cat "$work/rule.log"; fail "run with the window rule"; }
python3 - "$work"/rule/s.rule.J0.0.*.json <<'PY' || fail "the window rule did not extend the short run"
import json, sys
t = json.load(open(sys.argv[1]))["timings"]["train"]
assert t["window_rule"] is True, t["window_rule"]
assert t["extended_s"] > 0 and t["extended_count"] > 0, (t["extended_s"], t["extended_count"])
assert t["count"] >= 1_000_000 + t["extended_count"] - 1, (t["count"], t["extended_count"])
assert len(t["rates"]) >= 21, len(t["rates"])  # 20 before finalize, + the partial last slice
PY
"$MILARUN" report "$work/rule" > "$work/rule.txt" 2> /dev/null || fail "report of the extended run"
grep -q "s.rule  s.rule.J0.0.*: +[0-9.]* s past the count" "$work/rule.txt" || { cat "$work/rule.txt"; fail "extension not reported"; }
grep -q "only [0-9]* slices (" "$work/rule.txt" && fail "the extended run is still flagged short"
echo "window_flag_cli_test: passed ($slices slices with --stop-at-count; the window rule extended the same count)"
