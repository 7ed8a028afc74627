#!/usr/bin/python3
"""The perf of one milarun result, as `milarun summary` computes it: the mean of
rates[-20:-2] of timings.train (train_0, rank 0, for a group), or all rates when
the run has too few slices. --after-slices N gives instead the mean of the
slices after the first N (N = 10: after 5 s of 0.5 s slices).
Usage: bench/result_perf.py [--after-slices N] RESULT.json|-   (- reads stdin)"""
import argparse, json, sys

p = argparse.ArgumentParser()
p.add_argument("--after-slices", type=int)
p.add_argument("result")
a = p.parse_args()
doc = json.load(sys.stdin if a.result == "-" else open(a.result))
t = doc["timings"]
r = (t.get("train") or t["train_0"])["rates"]
w = r[a.after_slices:] if a.after_slices is not None else (r[-20:-2] or r)
print(f"{sum(w) / len(w):.2f}")
