#!/usr/bin/env python3
"""Sizes profiles/cpu.json from one suite run on the target machine.

    build/milarun jobs profiles/cpu.json -d $D -o $OUT --min-duration 30 -- --max-count 1
    bench/size_cpu_profile.py build/milarun $OUT [--profile profiles/cpu.json] [--write]

Every run of that suite measures 30 s whatever its --max-count, so its
results give each test's rate (count per timed second), seconds per rate
entry (0.5 s: the meter gives every slice a rate, also those inside a long
step) and median warm-up (the report's detector, via `milarun summary`). The
--max-count printed for a test makes it measure its warm-up (at least
MIN_WARMUP_S) plus SLICES slices of 0.5 s, rounded up to whole batches: a machine up to SLICES/22 times
faster still fills the summary window (22 slices after warm-up). --write puts
the figures into the profile. Output: one Markdown row per test and the predicted suite time.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import tempfile
from collections import defaultdict

SLICES = 36  # slices of 0.5 s wanted after the warm-up
MIN_WARMUP_S = 5.0  # allowed for even where the detector saw none in the sizing run


def train_entries(r):
    t = r.get("timings", {})
    return [v for k, v in t.items() if k == "train" or k.startswith("train_")][:1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("milarun")
    ap.add_argument("results")
    ap.add_argument("--profile", default=os.path.join(os.path.dirname(__file__), "..", "profiles", "cpu.json"))
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    profile = json.load(open(a.profile))

    runs = defaultdict(list)  # test -> [(count, time, entries, setup, program)]
    for f in sorted(glob.glob(os.path.join(a.results, "**", "*.json"), recursive=True)):
        r = json.load(open(f))
        if not isinstance(r, dict) or not r.get("success") or not train_entries(r):
            continue
        tr = train_entries(r)[0]
        test = r["name"].split(".", 1)[1]  # "<suite>.<test>[.<ranks>]"
        t = r.get("timings", {})
        runs[test].append((tr["count"], tr["time"], len(tr["rates"]), t.get("setup", {}).get("time", 0.0),
                           t.get("program", {}).get("time", tr["wall_time"])))

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([a.milarun, "summary", a.results, "-o", tmp + "/s.json"], check=True,
                       stdout=subprocess.DEVNULL)
        summary = json.load(open(tmp + "/s.json"))
    warmup = {}
    for key, entry in summary.items():
        w = entry.get("stats", {}).get("warmup_s", {}) if isinstance(entry, dict) else {}
        w = w.get("median") if isinstance(w, dict) else None
        if isinstance(w, (int, float)) and not math.isnan(w):
            warmup[key.split(".", 1)[1]] = w  # "<suite>.<test>[.<ranks>]"

    print("| test | count/s | s per entry | warm-up s | measure s | setup s | --max-count |")
    print("|---|---|---|---|---|---|---|")
    total = 0.0
    counts = defaultdict(int)
    for test in sorted(runs):
        spec = profile.get(test.split(".")[0])
        if spec is None:
            continue
        rs = runs[test]
        rate = min(c / t for c, t, *_ in rs)  # the slower copy decides
        per_entry = max(t / n for _, t, n, *_ in rs)
        setup = max(s for *_, s, _ in rs)
        w = warmup.get(test, 0.0)
        measure = max(w, MIN_WARMUP_S) + SLICES * 0.5
        step = spec["arguments"].get("--batch-size", 1)
        count = max(step, int(math.ceil(rate * measure / step)) * step)
        total += setup + measure + 2.0
        print(f"| {test} | {rate:.4g} | {per_entry:.2f} | {w:.1f} | {measure:.0f} | {setup:.1f} | {count} |")
        counts[test.split(".")[0]] = max(counts[test.split(".")[0]], count)  # scaling.1/.2: the larger
    if a.write:
        for test, count in counts.items():
            profile[test]["arguments"]["--max-count"] = count
    print(f"\npredicted suite time: {total / 60:.1f} min (setup + measured + 2 s per test; scaling.1 and .2 each)")
    if a.write:
        with open(a.profile, "w") as f:
            json.dump(profile, f, indent=4)
            f.write("\n")


if __name__ == "__main__":
    main()
