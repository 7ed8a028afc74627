#!/usr/bin/env bash
# scripts/download.sh, the seed's data step: offline it generates every
# dataset of the standard profile in the real layout and records each in
# DATAROOT/MANIFEST.json; a second call keeps them. With --download it fetches
# the real files (here from a local mirror holding archives in the real
# layouts), verifies them against the table's published hashes and generates
# whatever could not be downloaded.
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"
scale=0.0005
all='["bsds500", "coco", "fake_imagenet", "ml20m", "mnist", "wiki2", "wmt16"]'

"$SRC/scripts/download.sh" -d gen --scale $scale --milarun "$MILARUN" > gen.log 2>&1 || fail "offline: $(cat gen.log)"
python3 - gen "$all" <<'PY' || fail "offline manifest"
import json, sys
m = json.load(open(sys.argv[1] + "/MANIFEST.json"))
assert sorted(m) == json.loads(sys.argv[2]), sorted(m)
for k, v in m.items():
    assert v["synthetic"] is True and v["scale"] == 0.0005, (k, v)
PY
[ -s gen/wikitext-2/wiki.train.tokens ] || fail "wiki2 not in the wikitext-2-v1.zip layout"
"$SRC/scripts/download.sh" -d gen --scale $scale --milarun "$MILARUN" > again.log 2>&1 || fail "second call"
[ "$(grep -c ': present under gen' again.log)" = 7 ] || fail "second call should keep all 7: $(cat again.log)"
grep -q generating again.log && fail "second call regenerated something"

rc=0; "$SRC/scripts/download.sh" --milarun "$MILARUN" > usage.log 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "no data root" usage.log || fail "no -d: $rc $(cat usage.log)"

# A mirror of the original files, packed as published (MIRROR/<dir>/<file>).
python3 - gen mirror <<'PY'
import gzip, os, shutil, sys, tarfile, zipfile
gen, mirror = sys.argv[1], sys.argv[2]
def out(d, f):
    os.makedirs(os.path.join(mirror, d), exist_ok=True)
    return os.path.join(mirror, d, f)
def zipdir(path, members):  # members: (arcname, file)
    with zipfile.ZipFile(path, "w") as z:
        for arc, f in members: z.write(f, arc)
def tree(root, arcroot):
    return [(os.path.join(arcroot, os.path.relpath(os.path.join(d, f), root)), os.path.join(d, f))
            for d, _, fs in os.walk(root) for f in fs]
for f in ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]:
    with open(os.path.join(gen, "mnist/MNIST/raw", f), "rb") as i, gzip.open(out("mnist", f + ".gz"), "wb") as o:
        shutil.copyfileobj(i, o)
with tarfile.open(out("bsds500", "BSR_bsds500.tgz"), "w:gz") as t:
    t.add(os.path.join(gen, "bsds500/BSR"), "BSR")
zipdir(out("wikitext-2", "wikitext-2-v1.zip"), tree(os.path.join(gen, "wikitext-2"), "wikitext-2"))
for s in ["train2017", "val2017"]:
    zipdir(out("coco", s + ".zip"), tree(os.path.join(gen, "coco", s), s))
zipdir(out("coco", "annotations_trainval2017.zip"), tree(os.path.join(gen, "coco/annotations"), "annotations"))
zipdir(out("ml-20m", "ml-20m.zip"), [("ml-20m/ratings.csv", os.path.join(gen, "ml-20m/ratings.csv"))])
PY
python3 - mirror > server.log 2>&1 <<'PY' &
import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
open("port", "w").write(str(s.server_address[1]))
s.serve_forever()
PY
server=$!
for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
[ -s port ] || fail "local server did not start: $(cat server.log)"

rc=0
MILARUN_DOWNLOAD_MIRROR=http://127.0.0.1:$(cat port) "$SRC/scripts/download.sh" -d real --scale $scale --download \
  --milarun "$MILARUN" > dl.log 2>&1 || rc=$?
[ $rc = 0 ] || fail "--download exited $rc: $(cat dl.log)"
# mnist and wikitext-2 have published hashes: the mirror's stand-in files do
# not match them, so they are refused and generated; the other sources have
# no published hash and are installed (hash recorded, unverified).
grep -q "sha256" dl.log || fail "no hash mismatch reported: $(cat dl.log)"
python3 - real "$all" <<'PY' || fail "download manifest: $(cat dl.log)"
import json, os, sys
root = sys.argv[1]
m = json.load(open(root + "/MANIFEST.json"))
assert sorted(m) == json.loads(sys.argv[2]), sorted(m)
for k in ["bsds500", "coco", "ml20m"]:
    assert m[k]["synthetic"] is False and m[k]["source"] == "download", (k, m[k])
for k in ["mnist", "wiki2", "fake_imagenet", "wmt16"]:
    assert m[k]["synthetic"] is True, (k, m[k])
for d in ["bsds500", "coco", "ml-20m"]:
    prov = json.load(open(os.path.join(root, d, ".download.json")))
    assert prov["source"] == "download" and all(not f["verified"] for f in prov["files"]), prov
assert os.path.isfile(root + "/bsds500/BSR/BSDS500/data/images/train/" + os.listdir(root + "/bsds500/BSR/BSDS500/data/images/train")[0])
assert os.path.isfile(root + "/coco/annotations/instances_val2017.json")
assert not os.path.exists(root + "/.downloads/coco"), "archives left behind"
PY
echo "download_cli_test: all checks passed"
