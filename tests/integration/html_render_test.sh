#!/usr/bin/env bash
# report.html rendered by Debian's chromium (headless): the page must load, hold every section
# (DOM ids), screenshot to a non-trivial PNG at 1100 px and print to PDF. Results are generated
# (two tests x two devices, one run too short for the summary window), so it takes seconds.
set -euo pipefail
MILARUN=$1; SRC=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v chromium > /dev/null || fail "chromium is not installed (scripts/install-deps.sh installs it)"

python3 - "$work" <<'EOF'
import json, os, sys
work = sys.argv[1]
for side, speed in (("res", 1.0), ("base", 0.8)):
    os.makedirs(f"{work}/{side}")
    for test, unit in (("lab.convnet", "images"), ("lab.toy", "samples")):
        for dev in (0, 1):
            for rep in (0, 1):
                n = 14 if (side, test, dev, rep) == ("res", "lab.toy", 1, 1) else 60
                rates = [speed * (40.0 if i < 6 else 100.0 + 3 * dev + (7 * i + rep) % 5) for i in range(n)]
                r = {"name": test, "job_id": f"{rep}.{dev}", "success": True, "error": None, "device": str(dev),
                     "count_unit": unit, "metrics": {"loss": 0.5},
                     "environ": {"CUDA_VISIBLE_DEVICES": str(dev)},
                     "timings": {"program": {"time": 40.0}, "train": {"rates": rates, "sample_duration": 0.5}},
                     "inventory": {"hostname": "node7", "cpu_model": "Test CPU", "cpu_count": 2, "ram_mb": 8192,
                                   "gpus": [], "driver": None, "kernel": "Linux 6.1", "libtorch_version": "2.6.0"},
                     "isolation": {"kind": "affinity", "cpu_list": str(dev)},
                     "dataset": {"name": "mnist", "synthetic": True}}
                with open(f"{work}/{side}/{test}.J{rep}.{dev}.20261203-10{rep}000-00000{dev}.json", "w") as f:
                    json.dump(r, f)
EOF
"$MILARUN" summary "$work/base" -o "$work/base.json" || fail "summary"
"$MILARUN" report "$work/res" --compare "$work/base.json" --compare-gpus --html "$work/report.html" \
  --title "Render test <b>&amp;</b>" > "$work/report.txt" 2> "$work/report.err" || { cat "$work/report.err"; fail "report"; }
grep -q "only 14 slices" "$work/report.txt" || fail "the text report does not flag the short run"

# Chromium, isolated: no network services, a fresh profile.
browse() {
  local profile; profile=$(mktemp -d "$work/profile.XXXX")
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$profile" \
    --hide-scrollbars "$@" "file://$work/report.html" 2>> "$work/chromium.log"
}
browse --dump-dom > "$work/dom.html" || { tail -20 "$work/chromium.log"; fail "chromium --dump-dom"; }
for id in headline context window results ratios devices charts evidence significance; do
  grep -q "<section id=\"$id\"\|<header id=\"$id\"" "$work/dom.html" || fail "section #$id missing from the rendered DOM"
done
[ "$(grep -o '<svg' "$work/dom.html" | wc -l)" -eq 3 ] || fail "expected 2 rate charts and 1 ratio chart"
grep -q 'Render test &lt;b&gt;&amp;amp;&lt;/b&gt;' "$work/dom.html" || fail "the title is not escaped text"

browse --window-size=1100,2200 --screenshot="$work/shot.png" > /dev/null || fail "chromium --screenshot"
browse --no-pdf-header-footer --print-to-pdf="$work/page.pdf" > /dev/null || fail "chromium --print-to-pdf"
python3 - "$work/shot.png" "$work/page.pdf" <<'EOF' || fail "screenshot or PDF is empty or trivial"
import struct, sys, zlib
png = open(sys.argv[1], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", png[16:24])
assert w == 1100 and h == 2200, (w, h)
raw, i = b"", 8
while i < len(png):
    n, kind = struct.unpack(">I4s", png[i:i + 8])
    if kind == b"IDAT":
        raw += png[i + 8:i + 8 + n]
    i += 12 + n
pixels = zlib.decompress(raw)
# A blank page compresses ~1000:1; text, tables and charts do not.
assert len(raw) > 40_000 and len(pixels) / len(raw) < 200, (len(raw), len(pixels))
pdf = open(sys.argv[2], "rb").read()
assert pdf[:5] == b"%PDF-" and pdf.count(b"/Type /Page") >= 2 and len(pdf) > 20_000, len(pdf)
print(f"screenshot {w}x{h}, {len(png)} bytes; pdf {len(pdf)} bytes")
EOF
echo "html_render_test: passed"
