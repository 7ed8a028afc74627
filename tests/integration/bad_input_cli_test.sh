#!/usr/bin/env bash
# Every milarun flag and profile key given a wrong type or range: the command
# must exit non-zero (not by a signal), print exactly one line on stderr that
# names the flag or file, and no stack trace / abort / core dump. Commands
# that get past validation would start runs, so nothing here trains: the
# sweep only reaches the point where input is checked.
# BAD_INPUT_VERBOSE=1 prints every command with its exit code and stderr.
set -uo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0 cases=0

# expect WORD CMD...: CMD fails with one stderr line containing WORD.
expect() {
  local word=$1; shift
  cases=$((cases + 1))
  # A command that gets past validation would start a run: the limit turns
  # that into a failure of this test instead of a long wait.
  timeout -k 5 20 "$@" > out.txt 2> err.txt < /dev/null
  local rc=$?
  local lines; lines=$(grep -c '' err.txt)
  local why=""
  if [ $rc = 0 ]; then why="exit 0"
  elif [ $rc = 124 ]; then why="not refused within 20 s (it ran)"
  elif [ $rc -ge 125 ]; then why="exit $rc (a signal?)"
  elif [ "$lines" != 1 ]; then why="$lines stderr lines"
  elif ! grep -qF -- "$word" err.txt; then why="stderr does not name '$word'"
  elif grep -qiE 'terminate called|abort|core dumped|stack trace|what\(\):' err.txt; then why="crash text"
  fi
  [ -n "${BAD_INPUT_VERBOSE:-}" ] && echo "milarun ${*:2}  =>  rc $rc: $(head -c 300 err.txt)"
  if [ -n "$why" ]; then
    failures=$((failures + 1))
    echo "FAIL ($why): milarun ${*:2}"
    sed 's/^/    stderr: /' err.txt | head -5
  fi
}

M=$MILARUN
mkdir -p data out
echo '{"a": 1' > bad.json
echo '[1, 2]' > list.json
: > empty.json

# ---- top level ----
expect "nosuch" $M nosuch
expect "--bogus" $M --bogus

# ---- run (own flags, then the harness flags after --) ----
expect "nosuch" $M run nosuch --
expect "--extra" $M run polynome --extra '{not json' -- --stop-at-count --max-count 10
expect "--experiment-name" $M run polynome --extra '{"name": "evil/../x"}' -- --stop-at-count --max-count 10
expect "--max-count" $M run polynome -- --stop-at-count --max-count abc
expect "--max-count" $M run polynome -- --stop-at-count --max-count -1
expect "--max-count" $M run polynome -- --stop-at-count --max-count 1.5
expect "--sample-duration" $M run polynome -- --stop-at-count --max-count 10 --sample-duration 0
expect "--sample-duration" $M run polynome -- --stop-at-count --max-count 10 --sample-duration -1
expect "--sample-duration" $M run polynome -- --stop-at-count --max-count 10 --sample-duration abc
expect "--sample-duration" $M run polynome -- --stop-at-count --max-count 10 --sample-duration nan
expect "--seed" $M run polynome -- --stop-at-count --max-count 10 --seed abc
expect "--batch-size" $M run polynome -- --stop-at-count --max-count 10 --batch-size abc
expect "--nosuch" $M run polynome -- --stop-at-count --max-count 10 --nosuch 1

# ---- jobs ----
expect "missing.json" $M jobs missing.json -d data -o out
expect "bad.json" $M jobs bad.json -d data -o out
expect "list.json" $M jobs list.json -d data -o out
expect "empty.json" $M jobs empty.json -d data -o out
expect "--repeat" $M jobs "$SRC/profiles/cpu.json" -d data -o out --repeat 0
expect "--repeat" $M jobs "$SRC/profiles/cpu.json" -d data -o out --repeat -1
expect "--repeat" $M jobs "$SRC/profiles/cpu.json" -d data -o out --repeat abc
expect "--devices" $M jobs "$SRC/profiles/cpu.json" -d data -o out --devices x
expect "--devices" $M jobs "$SRC/profiles/cpu.json" -d data -o out --devices -1
expect "nosuchtest" $M jobs "$SRC/profiles/cpu.json" -d data -o out --name nosuchtest
touch afile
expect "afile" $M jobs "$SRC/profiles/cpu.json" -d data -o afile/sub

# Profile keys: profiles/cpu.json with one key broken at a time.
break_key() {  # POINTER JSON-VALUE -> broken.json
  python3 - "$SRC/profiles/cpu.json" "$1" "$2" > broken.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
*path, last = sys.argv[2].strip("/").split("/")
node = p
for k in path:
    node = node[k]
node[last] = json.loads(sys.argv[3])
print(json.dumps(p))
PY
}
while IFS='|' read -r pointer value; do
  break_key "$pointer" "$value"
  expect "broken.json" $M jobs broken.json -d data -o out
done <<'CASES'
/toy_reg|5
/toy_reg/experiment|7
/toy_reg/arguments|"--batch-size 4"
/toy_reg/arguments/--batch-size|[1, 2]
/toy_reg/arguments/--batch-size|{"a": 1}
/toy_reg/arguments/batch-size|4
/toy_reg/prepare|"sync"
/toy_reg/exec_prefix|[1]
/toy_reg/partition_scheme|"per-gpu"
/*/partition_scheme/type|3
/*/partition_scheme/type|"per-cpu"
/*/partition_scheme/cgroup|["cpuset"]
/toy_reg/timeout|-1
/toy_reg/timeout|"1h"
/*|[]
CASES

# ---- dataset ----
expect "--scale" $M dataset mnist -d data --scale 0
expect "--scale" $M dataset mnist -d data --scale 2
expect "--scale" $M dataset mnist -d data --scale abc
expect "--threads" $M dataset mnist -d data --threads abc
expect "--threads" $M dataset mnist -d data --threads -1
expect "nosuchset" $M dataset nosuchset -d data
expect "missing.json" $M dataset --profile missing.json -d data
expect "afile" $M dataset mnist -d afile/sub

# ---- rerun ----
expect "missing.json" $M rerun missing.json
expect "bad.json" $M rerun bad.json
echo '{"experiment": "polynome", "arguments": [1, 2]}' > badargs.json
expect "badargs.json" $M rerun badargs.json
echo '{"experiment": 5}' > badexp.json
expect "badexp.json" $M rerun badexp.json

# ---- summary ----
expect "missingdir" $M summary missingdir
expect "afile" $M summary afile
expect "afile/x.json" $M summary out -o afile/x.json

# ---- report ----
mkdir -p res
expect "missingdir" $M report missingdir
expect "bad.json" $M report bad.json
expect "list.json" $M report list.json
expect "missing.json" $M report "$SRC/baselines/standard/v100.json" --weights missing.json
expect "bad.json" $M report "$SRC/baselines/standard/v100.json" --weights bad.json
expect "list.json" $M report "$SRC/baselines/standard/v100.json" --weights list.json
expect "missing.json" $M report "$SRC/baselines/standard/v100.json" --compare missing.json
expect "bad.json" $M report "$SRC/baselines/standard/v100.json" --compare bad.json
expect "list.json" $M report "$SRC/baselines/standard/v100.json" --compare list.json
expect "--price" $M report "$SRC/baselines/standard/v100.json" --price -1
expect "--price" $M report "$SRC/baselines/standard/v100.json" --price abc
expect "--price" $M report "$SRC/baselines/standard/v100.json" --price inf
expect "afile/r.html" $M report "$SRC/baselines/standard/v100.json" --html afile/r.html
expect "afile/r.csv" $M report "$SRC/baselines/standard/v100.json" --csv afile/r.csv

# ---- cgroups (status only reads) ----
expect "nosuchaction" $M cgroups nosuchaction
expect "--devices" $M cgroups status --devices x
expect "--memory-mb" $M cgroups status --memory-mb abc

echo "bad_input_cli_test: $((cases - failures)) passed, $failures failed"
[ $failures = 0 ]
