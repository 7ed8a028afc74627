#!/usr/bin/env bash
# --until-stable through the real binary, then summary/report evidence, --compare verdicts with
# --margin, and exports.
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Two parallel copies whose --max-count (100 M samples, about 80 s at the ~1.2 M/s of a 2-core
# machine) leaves the steady-state rule room to end them first (it needs ~20 s of steady slices).
# Each is pinned to a CPU of its own where there are two (as jobs' partitions do), so neither
# makes the other unsteady; on one CPU they share it. Whether a run settles depends on the
# machine (a VM whose rate halves every ~45 s never does, and then --until-stable rightly runs
# to the count), so each run is checked for what it says it did, not for how fast it settled.
read -r -a cpus <<< "$(python3 -c "import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[-1])")"
pids=()
for dev in 0 1; do
  OMP_NUM_THREADS=1 timeout 400 taskset -c "${cpus[$dev]}" "$MILARUN" run polynome -o "$work/res/" \
    --experiment-name s.toy --job-id 0.$dev -- --max-count 100_000_000 --until-stable 2> "$work/run$dev.log" &
  pids+=($!)
done
for dev in 0 1; do
  wait "${pids[$dev]}" || { cat "$work/run$dev.log"; fail "until-stable run $dev"; }
done
for dev in 0 1; do
  f=$(ls "$work"/res/s.toy.J0.$dev.*.json)
  stopped=$(python3 -c "
import json,sys
t=json.load(open(sys.argv[1]))['timings']['train']
assert t['until_stable'] is True, t
if t['stopped_stable']:
    assert t['count'] < t['max_count'] and len(t['rates']) >= 38, (t['count'], len(t['rates']))
else:
    assert t['count'] >= t['max_count'], (t['count'], t['max_count'])
print(1 if t['stopped_stable'] else 0)" "$f") || fail "result of run $dev does not record --until-stable"
  if [ "$stopped" = 1 ]; then
    grep -q "steady, --until-stable" "$work/run$dev.log" || fail "run $dev did not say it stopped when steady"
  else
    grep -q "steady, --until-stable" "$work/run$dev.log" && fail "run $dev says it stopped when steady, its result does not"
    echo "note: until-stable run $dev never settled on this machine and ran to --max-count"
  fi
done

"$MILARUN" summary "$work/res" -o "$work/sum.json" || fail "summary"
python3 -c "
import json,sys
e=json.load(open(sys.argv[1]))['s.toy']
base={'n','failures','total','train','pergpu','peak_memory'}
# Pinned apart they should not see each other, but a machine's other load may: contended_runs then lists them.
assert base <= set(e) and set(e) - base - {'contended_runs'} == {'stats','inventory','arguments'}, set(e)
s=e['stats']
assert s['until_stable_runs']==2 and len(s['runs'])==2 and s['perf_ci95'] is not None, s
assert e['inventory']['libtorch_version'], e['inventory']" "$work/sum.json" || fail "summary evidence keys"

"$MILARUN" report "$work/res" --compare "$work/sum.json" --csv "$work/t.csv" --markdown "$work/t.md" \
  > "$work/report.txt" 2> "$work/report.err" || fail "report"
grep -q "runs that used --until-stable" "$work/report.txt" || fail "report does not list --until-stable runs"
grep -q "significance against the baseline" "$work/report.txt" || fail "no significance section"
# Compared with itself the difference is 0: never "faster"/"slower". Two copies a side: "same"
# within a 90% margin unless they differ by more than ~30% (a busy machine), then "cannot decide".
"$MILARUN" report "$work/res" --compare "$work/sum.json" --margin 90 > "$work/self.txt" 2> "$work/self.err" \
  || fail "report --margin"
grep -E "^s\.toy .*welch \(runs\) .*(same \(within the 90\.0% margin\)|cannot decide with these runs; about [0-9]+ runs a side would)$" \
  "$work/self.txt" || { cat "$work/self.txt"; fail "self-comparison verdict"; }
grep -q "margin from: --margin" "$work/self.txt" || fail "margin source not named"
"$MILARUN" report "$work/res" --compare "$work/sum.json" --margin 100 > /dev/null 2> "$work/e2" && fail "--margin 100 accepted"
grep -q "error: --margin" "$work/e2" || fail "--margin range message"
head -1 "$work/t.csv" | grep -q "^test,weight,n,fail,perf" || fail "csv header"
head -1 "$work/t.csv" | grep -q ",margin_pct,margin_runs,runs_to_decide,test_used,margin_source,vs_margin,verdict" || fail "csv compare columns"
grep -Eq "^\| s\.toy( \[[^|]*\])* \|" "$work/t.md" || { cat "$work/t.md"; fail "markdown row"; }  # marks: [contended: ...]
"$MILARUN" report "$work/res" --csv /nonexistent-dir/t.csv > /dev/null 2> "$work/e1" && fail "unwritable --csv accepted"
grep -q "/nonexistent-dir/t.csv" "$work/e1" || fail "unwritable --csv message"
echo "stats_cli_test: passed"
