#!/usr/bin/python3
"""Per-update rates from a milarun result whose updates span several 0.5 s
slices: RateMeter gives every slice of one update the same rate, so runs of
equal consecutive rates are one update each. Prints the mean of the updates
after the first (the warm-up), and the list.
Usage: bench/rate_groups.py RESULT.json"""
import json, sys

rates = json.load(open(sys.argv[1]))["timings"]["train"]["rates"]
groups = [r for i, r in enumerate(rates) if i == 0 or r != rates[i - 1]]
steady = groups[1:] or groups
print(f"{sum(steady) / len(steady):.1f} (updates: {', '.join(f'{g:.1f}' for g in groups)})")
