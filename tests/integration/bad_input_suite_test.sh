#!/usr/bin/env bash
# Issue 17's probes through the real binaries: each asserts the exit status,
# the one line on stderr (naming the profile, test, flag or file) and where
# the results are (none lost, none outside -o, no FAIL file for a usage
# error). The reader-level halves are tests/core/bad_input_test.cpp.
# BAD_INPUT_VERBOSE=1 prints every command's stderr.
set -uo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0 cases=0
fail() { failures=$((failures + 1)); echo "FAIL: $*"; }

# probe RC LINES WORD CMD...: CMD exits RC with exactly LINES stderr lines,
# each containing WORD, and no raw escape byte, within 60 s.
probe() {
  local want_rc=$1 want_lines=$2 word=$3; shift 3
  cases=$((cases + 1))
  timeout -k 5 60 "$@" > out.txt 2> err.txt < /dev/null
  local rc=$? lines; lines=$(grep -c '' err.txt)
  [ -n "${BAD_INPUT_VERBOSE:-}" ] && echo "$* => rc $rc: $(head -c 600 err.txt)"
  local why=""
  if [ $rc != "$want_rc" ]; then why="exit $rc, expected $want_rc"
  elif [ "$lines" != "$want_lines" ]; then why="$lines stderr lines, expected $want_lines"
  elif [ "$(grep -cF -- "$word" err.txt)" != "$want_lines" ]; then why="not every line names '$word'"
  elif grep -q $'\x1b' err.txt out.txt; then why="a raw ESC reached the terminal"
  fi
  if [ -n "$why" ]; then
    fail "($why): $*"
    sed 's/^/    stderr: /' err.txt | head -8
  fi
}
results() { ls "$1"/*.json 2>/dev/null | wc -l; }

M=$MILARUN
"$M" dataset mnist -d data --scale 0.01 > /dev/null || fail "dataset mnist"
cat > two.json <<'JSON'
{"reg": {"experiment": "polynome", "arguments": {"--stop-at-count": true, "--max-count": 20000}},
 "vae": {"experiment": "vae", "arguments": {"--dataset": "milarun.datasets:mnist", "--stop-at-count": true, "--max-count": 640}}}
JSON

# ---- jobs pre-flight: one line per problem naming profile, test and flag; exit 2; nothing started
probe 2 2 "--batch-szie" "$M" jobs two.json -d data -o typo -- --batch-szie 32
grep -q 'two.json: test "reg"' err.txt && grep -q 'two.json: test "vae"' err.txt || fail "typo: tests not named"
[ ! -e typo ] || fail "typo: -o was created"
echo '{"t": {"experiment": "nosuch_model"}}' > unknown.json
probe 2 1 "nosuch_model" "$M" jobs unknown.json -d data -o unknown
echo '{"t": {"experiment": "polynome", "arguments": {"--stop-at-count": true, "--max-count": "abc"}}}' > abc.json
probe 2 1 "--max-count" "$M" jobs abc.json -d data -o abc
echo '{"t": {"experiment": "polynome", "arguments": {"--batch-size": 0}}}' > bs0.json
probe 2 1 "--batch-size" "$M" jobs bs0.json -d data -o bs0
echo '{"t": {"experiment": "vae", "arguments": {"--stop-at-count": true, "--max-count": 640}}}' > nodata.json
probe 2 1 "milarun dataset mnist -d nodata" "$M" jobs nodata.json -d nodata -o nodata
[ "$(results abc)$(results bs0)$(results nodata)" = 000 ] || fail "pre-flight: a result was written"
# 1500 tests (a ~170 KiB batch, over Linux's 128 KiB cap on one argv word): the last one's
# typo is named, so the whole batch reached check-args (issue 24 item 12)
python3 - > big.json <<'PY'
import json
t = {f"t{i:04d}": {"experiment": "polynome", "arguments": {"--stop-at-count": True, "--max-count": 20000,
                                                           "--poly-degree": 4}} for i in range(1500)}
t["t1499"]["arguments"]["--max-cuont"] = 1
print(json.dumps(t))
PY
probe 2 1 'test "t1499"' "$M" jobs big.json -d data -o big

# ---- profile names and shapes
mkdir -p deep/a/b
echo '{"x/../../../escape": {"experiment": "polynome", "arguments": {"--stop-at-count": true, "--max-count": 20000}}}' > deep/a/b/esc.json
probe 2 1 "x/../../../escape" "$M" jobs deep/a/b/esc.json -d data -o deep/a/b/out
[ -z "$(find . -name '*escape*')" ] || fail "escape: a file was written: $(find . -name '*escape*')"
echo '{}' > empty.json
probe 2 1 "empty.json" "$M" jobs empty.json -d data -o e
echo '{"t": {"experiment": "polynome"}, "t": {"experiment": "vae"}}' > dup.json
probe 2 1 'test "t" is defined twice' "$M" jobs dup.json -d data -o d
printf '{"t\\u001b[31m": {"experiment": "polynome"}}' > ansi.json
probe 2 1 "0x1b" "$M" jobs ansi.json -d data -o a

# ---- corrupt data: the run fails as bad_input; the message's remedy works; --resume completes
truncate -s 100 data/mnist/MNIST/raw/train-images-idx3-ubyte
rc=0; "$M" jobs two.json -d data --devices 1 -o suite > suite.log 2>&1 || rc=$?
[ $rc = 1 ] || fail "corrupt: exit $rc"
f=$(ls suite/two.vae.J0.0.FAIL.*.json 2> /dev/null) || fail "corrupt: no FAIL file"
remedy=$(python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['error']; print(e.split('run: ')[-1])" "$f")
case "$remedy" in *--force*) ;; *) fail "corrupt: the remedy lacks --force: $remedy";; esac
(cd "$work" && eval "$(echo "$remedy" | sed "s|^milarun|\"$M\"|")") > remedy.log 2>&1 || fail "remedy failed: $remedy"
rc=0; "$M" jobs two.json -d data --devices 1 -o suite --resume > resume.log 2>&1 || rc=$?
[ $rc = 0 ] || fail "resume: exit $rc: $(cat resume.log)"
grep -q "1 run(s) already have a result and are skipped; 1 run(s) that failed for a reason you can fix run again (bad_input 1" resume.log || fail "resume: does not say what runs again: $(grep resume: resume.log)"
[ "$(results suite)" = 2 ] && ls suite/two.vae.J0.0.2*.json > /dev/null 2>&1 || fail "resume: results $(ls suite)"
[ "$(results suite/superseded)" = 1 ] || fail "resume: the old FAIL file was not kept aside"
rc=0; "$M" jobs two.json -d data --devices 1 -o suite --resume > again.log 2>&1 || rc=$?
[ $rc = 0 ] && grep -q "2 run(s) already have a result and are skipped; 0 run(s)" again.log || fail "second resume ran something"
grep -q "total: 0 processes" again.log || fail "second resume: $(cat again.log)"
# mixed argument sets under one -o are refused unless asked for
probe 2 1 "--mixed-arguments" "$M" jobs two.json -d data --devices 1 -o suite --name reg -- --batch-size 7
[ "$(results suite)" = 2 ] || fail "mixed: a run started"

# ---- run: usage errors are exit 2 and leave no FAIL file
for bs in 0 -1; do
  probe 2 1 "--batch-size" "$M" run polynome -o runs/ -- --batch-size $bs --max-count 1000
done
probe 2 1 "out of range" "$M" run polynome -o runs/ -- --stop-at-count --max-count 99999999999999999999999
probe 2 1 "--max-count 0" "$M" run polynome -o runs/ -- --stop-at-count --max-count 0
probe 2 1 "--experiment-name" "$M" run polynome -o runs/ --experiment-name $'x\e[31m' -- --stop-at-count --max-count 1000
[ "$(results runs)" = 0 ] || fail "usage errors left files: $(ls runs)"
"$M" run polynome -- --help | grep -q -- "0 = no limit, only with --until-stable" || fail "--max-count 0 not in --help"
# a run shorter than one 0.5 s slice does not claim a rate
cases=$((cases + 1)); rc=0
"$M" run polynome -o runs/ -- --stop-at-count --max-count 10 2> short.err || rc=$?
[ $rc = 0 ] && grep -q "too short to measure .* the summary needs 3 and counts this run as failed: raise --max-count" short.err \
  && ! grep -q "last rate" short.err && [ "$(results runs)" = 1 ] || fail "short run: rc $rc: $(cat short.err)"

# ---- readers: one line each, exit 2
V="$SRC/baselines/standard/v100.json"
python3 - "$V" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
def put(name, test, key, value, sub=None):
    d = json.loads(json.dumps(b))
    (d[test][sub] if sub else d[test])[key] = value
    json.dump(d, open(name, "w"))
put("neg_mean.json", "standard.vae", "mean", -12163.0, "train")
put("fail_gt_n.json", "standard.vae", "failures", 81)
w = json.load(open(sys.argv[1].replace("baselines/standard/v100", "weights/standard")))
for name, v in [("heavy", "heavy"), ("minus8", -8), ("huge", 1e308)]:
    d = json.loads(json.dumps(w)); d["standard.vae"]["weight"] = v
    json.dump(d, open(f"w_{name}.json", "w"))
PY
probe 2 1 "neg_mean.json: test \"standard.vae\"" "$M" report "$V" --compare neg_mean.json
probe 2 1 "81 failures out of 80 runs" "$M" report "$V" --compare fail_gt_n.json
probe 2 1 "neg_mean.json" "$M" report neg_mean.json
for w in heavy minus8 huge; do probe 2 1 "w_$w.json: test \"standard.vae\"" "$M" report "$V" --weights w_$w.json; done
probe 2 1 "--price" "$M" report "$V" --price 0

# ---- results folder: nonsense rates, an ANSI name and a 4 GiB stray file
mkdir -p res
python3 - <<'PY'
import json
def result(name, rates):
    return {"name": name, "job_id": "0", "success": True, "device": "0", "metrics": {"loss": 0.5},
            "timings": {"program": {"time": 10.0}, "train": {"rates": rates}}}
json.dump(result("standard.vae", [12000.0] * 30), open("res/standard.vae.J0.json", "w"))
json.dump(result("standard.toy_reg", [0.0] * 30), open("res/standard.toy_reg.J0.json", "w"))
json.dump(result("standard.dcgan", [5.0, -634337.0] * 15), open("res/standard.dcgan.J0.json", "w"))
json.dump(result("x\u001b[2J", [5.0] * 30), open("res/ansi.J0.json", "w"))
PY
truncate -s 4G res/x.json
"$M" summary res -o sum.json 2> sum.err; rc=$?
[ $rc = 0 ] || fail "summary: exit $rc"
grep -q "x.json: 4.0 GiB, over the 64.0 MiB limit" sum.err || fail "summary: no size-limit line: $(cat sum.err)"
grep -q $'\x1b' sum.err && fail "summary: raw ESC on stderr"
python3 -c "
import json; s = json.load(open('sum.json'))
assert s['standard.toy_reg']['failure_kinds'] == {'bad_result': 1}, s['standard.toy_reg']
assert s['standard.dcgan']['failures'] == 1 and s['standard.vae']['failures'] == 0
" || fail "summary: nonsense rates counted as successes"
"$M" report res --weights "$SRC/weights/standard.json" --compare "$V" > rep.txt 2> rep.err || fail "report on res"
head -1 rep.txt | grep -q "^PARTIAL SUITE: 1 of 25 weighted tests have a result" || fail "partial: $(head -2 rep.txt)"
grep -q "^common ratio: .*over the 1 weighted test(s) both sides have" rep.txt || fail "partial: no common ratio"
grep -q $'\x1b' rep.txt rep.err && fail "report: raw ESC"

echo "bad_input_suite_test: $((cases - failures)) probes passed, $failures failed"
[ $failures = 0 ]
