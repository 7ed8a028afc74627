#!/usr/bin/env bash
# The results store from the command line (docs/history.md): `jobs` records
# into the default SQLite store beside -o, `--db none` writes none, `db
# import` is idempotent, `history` flags a halved perf as a regression,
# `report --compare @last` gives the report's verdicts, and a store that
# cannot be used costs one warning while the JSON files are still written.
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"
unset MILARUN_DB MILARUN_OUTROOT
cat > tiny.json <<JSON
{"*": {"partition_scheme": {"type": "per-gpu"}},
 "poly": {"experiment": "polynome", "arguments": {"--stop-at-count": true, "--max-count": 20000}}}
JSON
mkdir -p runs
"$MILARUN" jobs tiny.json -d data --devices 1 -o runs/first > first.log 2>&1 || { cat first.log; fail "jobs"; }
[ -f runs/milarun.sqlite ] || fail "jobs did not create the default store beside -o (runs/milarun.sqlite)"
grep -q "warning: results store" first.log && fail "unexpected store warning: $(cat first.log)"
(cd runs && "$MILARUN" history > ../h1.log) || fail "history exited $?: $(cat h1.log)"
grep -q "tiny.poly" h1.log || fail "history does not show the recorded run: $(cat h1.log)"
"$MILARUN" db info --db runs/milarun.sqlite | grep -q "^runs: 1$" || fail "db info: $("$MILARUN" db info --db runs/milarun.sqlite)"
"$MILARUN" db import runs/first --db runs/milarun.sqlite > imp.log || fail "db import"
grep -q "0 run(s) added, 1 already in the store" imp.log || fail "re-import duplicated: $(cat imp.log)"

# --db none: no store at all.
mkdir -p off
"$MILARUN" jobs tiny.json -d data --devices 1 -o off/r --db none > off.log 2>&1 || fail "jobs --db none"
[ ! -e off/milarun.sqlite ] || fail "--db none wrote a store"

# An unreachable store: one warning, the JSON still written, exit 0.
rc=0
"$MILARUN" jobs tiny.json -d data --devices 1 -o down --db /nonexistent-dir/x.sqlite > down.log 2>&1 || rc=$?
[ $rc = 0 ] || fail "jobs with an unreachable store exited $rc: $(cat down.log)"
[ "$(grep -c "warning: results store" down.log)" = 1 ] || fail "expected one warning: $(cat down.log)"
ls down/tiny.poly.J0.0.*.json > /dev/null || fail "no JSON result with the store down"

# A store of a newer schema: jobs warns once and goes on; history refuses in one line.
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('UPDATE schema_version SET version=99'); c.commit()" runs/milarun.sqlite
rc=0; "$MILARUN" jobs tiny.json -d data --devices 1 -o runs/second > second.log 2>&1 || rc=$?
[ $rc = 0 ] && [ "$(grep -c "schema version 99" second.log)" = 1 ] || fail "newer schema: rc $rc, $(cat second.log)"
rc=0; "$MILARUN" history --db runs/milarun.sqlite > /dev/null 2> newer.err || rc=$?
[ $rc = 2 ] && [ "$(wc -l < newer.err)" = 1 ] && grep -q "newer than this milarun" newer.err || fail "history on a newer store: rc $rc, $(cat newer.err)"

# History over four suite runs of one machine and arguments: the last one at half the speed.
python3 - <<'PY'
import json, os
for k, perf in enumerate([100, 101, 99, 50]):
    d = f"hist/s{k}"; os.makedirs(d)
    for i in range(6):
        rates = [perf * (1 + 0.01 * ((i * 7) % 5 - 2))] * 24
        doc = {"name": "lab.vae", "job_id": f"{i // 2}.{i % 2}", "success": True, "hostname": "node1",
               "arguments": ["--batch-size", "64"], "environ": {"CUDA_VISIBLE_DEVICES": str(i % 2)},
               "metrics": {"loss": 0.5}, "timings": {"train": {"rates": rates}}}
        stamp = f"2026120{k + 1}-10000{i}-000000"
        json.dump(doc, open(f"{d}/lab.vae.J{i // 2}.{i % 2}.{stamp}.json", "w"))
PY
"$MILARUN" db import hist/s0 hist/s1 hist/s2 hist/s3 --db hist.sqlite > /dev/null || fail "db import of the history"
rc=0; "$MILARUN" history --db hist.sqlite --test lab.vae --html hist.html > hist.log || rc=$?
[ $rc = 1 ] || fail "history should exit 1 on a regression, got $rc: $(cat hist.log)"
grep -q "slower by 50.*REGRESSION" hist.log || fail "the halved run is not flagged: $(cat hist.log)"
grep -q 'class="pt reg"' hist.html || fail "the trend chart does not mark the regression"
rc=0; "$MILARUN" history --db hist.sqlite --machine node1 --since 2026-12-03 > since.log || rc=$?
grep -q "2026-12-03" since.log && ! grep -q "2026-12-02" since.log || fail "--since: $(cat since.log)"
rc=0; "$MILARUN" history --db hist.sqlite --machine node2 > other.log || rc=$?
grep -q "lab.vae" other.log && fail "--machine node2 shows node1's runs: $(cat other.log)"
"$MILARUN" report hist/s3 --compare @last --db hist.sqlite --html rep.html > rep.log 2>&1 || fail "report --compare @last: $(cat rep.log)"
grep -q "lab.vae .*slower by" rep.log || fail "report --compare @last verdict: $(cat rep.log)"
grep -q 'id="history"' rep.html || fail "report --html has no history section"
rc=0; "$MILARUN" report hist/s3 --compare @77 --db hist.sqlite > /dev/null 2> bad.err || rc=$?
[ $rc = 2 ] && grep -q "no suite run with that id" bad.err || fail "--compare @77: rc $rc $(cat bad.err)"
echo "PASS: store CLI"
