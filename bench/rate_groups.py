#!/usr/bin/python3
"""Per-update rates from a milarun result whose updates span several 0.5 s
slices: RateMeter gives every slice of one update the same rate, so runs of
equal consecutive rates are one update each. Prints the mean of the updates
after the first (the warm-up), and the list.
Usage: bench/rate_groups.py RESULT.json"""
import json, sys

rates = json.load(open(sys.argv[1]))["timings"]["train"]["rates"]
# The final partial slice repeats its update's rate up to rounding: equal
# within 1e-9 relative is the same update.
groups = [r for i, r in enumerate(rates) if i == 0 or abs(r - rates[i - 1]) > 1e-9 * abs(r)]
steady = groups[1:] or groups
print(f"{sum(steady) / len(steady):.4g} (updates: {', '.join(f'{g:.4g}' for g in groups)})")
