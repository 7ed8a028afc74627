#!/usr/bin/env python3
"""Reference for the rate meter: the arithmetic of the original milabench's
RateLogger (milarun/lib/experiment.py, tag mila-ao-2020-2), written again here
from its description, driven by a fake clock.

  ratelogger_reference.py --write FILE   makes the trace and its expected rates
  ratelogger_reference.py --check FILE   recomputes them; exit 1 if FILE differs

The trace is a list of timed blocks: `gap` untimed seconds before the block
(between a step() and the next begin()), `duration` timed seconds, `count`
examples, `implicit` (no begin(): the block starts where the last one ended;
gap is 0). A device sync costs `sync_cost` seconds of clock time. The C++ test
(tests/core/rate_meter_trace_test.cpp) replays the same blocks through
RateMeter and must get the same rates, times and counts.
"""
import json
import random
import sys


class RateLoggerArithmetic:
    """RateLogger's fields and elapse/finalize/report on a fake clock."""

    def __init__(self, sample_duration, sync, sync_cost, t0):
        self.sd = sample_duration
        self.sync = sync
        self.sync_cost = sync_cost
        self.t = t0
        self.current = 0
        self.count = 0
        self.total_count = 0
        self.total_time = 0
        self.results = []
        self.start = 0
        self.end = 0

    def elapse(self, duration, count):
        self.current += duration
        self.count += count
        self.total_time += duration
        self.total_count += count
        if self.current >= self.sd:
            nblocks = self.current / self.sd
            unit = self.count / nblocks
            self.results.extend([unit / self.sd] * int(nblocks))
            self.current = self.current % self.sd
            self.count = self.count % unit

    def block(self, gap, duration, count):
        self.t += gap
        if not self.start:
            self.start = self.t
        start = self.t
        self.t += duration
        end = self.t
        if self.sync and self.current + (end - start) >= self.sd:
            self.t += self.sync_cost
            end = self.t
        self.elapse(end - start, count)
        self.end = self.t

    def finalize(self):
        if self.sync:
            a = self.t
            self.t += self.sync_cost
            b = self.t
            self.elapse(b - a, 0)
        if self.current > 0:
            self.results.append(self.count / self.current)
        self.current = 0
        self.count = 0

    def report(self):
        self.finalize()
        wall = self.end - self.start if self.start and self.end else 0
        return {"rates": self.results, "count": self.total_count, "time": self.total_time,
                "wall_time": wall, "overhead": wall - self.total_time}


def make_trace(seed):
    """Warm-up blocks, steady blocks, a data stall spanning several slices,
    zero-count blocks, untimed gaps and implicit blocks."""
    rng = random.Random(seed)
    blocks = []
    blocks.append({"gap": 0.0, "duration": 1.37, "count": 64, "implicit": False})  # first, slow
    for i in range(400):
        implicit = rng.random() < 0.3
        gap = 0.0 if implicit else rng.choice([0.0, 0.0, rng.uniform(0, 0.02)])
        duration = rng.uniform(0.01, 0.05)
        count = rng.choice([64, 64, 64, 37, 0]) if i % 97 else 64
        if i == 150:
            duration = 2.3  # one block over four slices
        blocks.append({"gap": gap, "duration": duration, "count": count, "implicit": implicit})
    return blocks


def cases():
    trace = make_trace(13)
    out = []
    for sync in (True, False):
        ref = RateLoggerArithmetic(0.5, sync, 0.003, 1000.0)
        for b in trace:
            ref.block(b["gap"], b["duration"], b["count"])
        out.append({"sample_duration": 0.5, "sync": sync, "sync_cost": 0.003, "t0": 1000.0,
                    "expected": ref.report()})
    return {"blocks": trace, "cases": out}


def main(argv):
    if len(argv) != 3 or argv[1] not in ("--write", "--check"):
        print(__doc__, file=sys.stderr)
        return 2
    data = cases()
    if argv[1] == "--write":
        with open(argv[2], "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        return 0
    with open(argv[2]) as f:
        stored = json.load(f)
    if stored != data:
        print(f"{argv[2]} differs from what this script computes: run it with --write", file=sys.stderr)
        return 1
    print(f"{argv[2]}: {len(data['blocks'])} blocks, {len(data['cases'])} cases match")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
