#!/usr/bin/env python3
"""Sizes profiles/cpu.json: runs each test once as `milarun jobs` would on one
CPU partition of a 2-core machine (pinned to one CPU, thread variables 1) and
prints its rate and the --max-count that gives TARGET seconds of measured
time on an otherwise idle CPU.

    bench/cpu_profile_rates.py build/milarun DATAROOT [--target 30] [--limit 90] [TEST ...]

The idle-CPU rate is estimated from the run's CPU time: perf / (CPU seconds /
measured seconds), so a run on a loaded machine (whose process gets only part
of its CPU) is scaled up to what it would get alone. A run is stopped after
--limit seconds (then no figure). Output: one Markdown row per test for
docs/performance.md. Run it after changing a workload's speed; it reads the
tests, arguments and current --max-count from the profile.
"""
import argparse
import glob
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def argv_of(arguments):
    out = []
    for k, v in arguments.items():
        if v is True:
            out.append(k)
        elif v is False or v is None:
            continue
        else:
            out += [k, str(v)]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("milarun")
    ap.add_argument("dataroot")
    ap.add_argument("tests", nargs="*")
    ap.add_argument("--profile", default=os.path.join(HERE, "profiles/cpu.json"))
    ap.add_argument("--target", type=float, default=30.0, help="measured seconds wanted per run on an idle CPU")
    ap.add_argument("--limit", type=float, default=90.0, help="wall-clock limit per run (s)")
    ap.add_argument("--count", type=float, default=None, help="run this fraction of each test's --max-count")
    ap.add_argument("--cpu", default="0", help="CPU to pin to")
    a = ap.parse_intermixed_args()
    profile = json.load(open(a.profile))
    tests = a.tests or [k for k in profile if k != "*"]
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    print("| test | batch | --max-count run | wall s | measured s | CPU s | slices | perf (unit/s) "
          "| idle-CPU rate | --max-count for %.0f s |" % a.target)
    print("|---|---|---|---|---|---|---|---|---|---|")
    for t in tests:
        spec = profile[t]
        args = dict(spec["arguments"])
        if a.count:
            args["--max-count"] = max(1, int(args["--max-count"] * a.count))
        with tempfile.TemporaryDirectory() as out:
            cmd = ["taskset", "-c", a.cpu, a.milarun, "run", spec["experiment"], "-d", a.dataroot, "-o", out + "/",
                   "--job-id", "0.0", "--"] + argv_of(args)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.time()
            try:
                subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=open(out + "/log", "w"),
                               timeout=a.limit, check=False)
            except subprocess.TimeoutExpired:
                print(f"| {t} | | {args['--max-count']} | >{a.limit:.0f} | | | | stopped at the limit | | |")
                continue
            wall = time.time() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            files = [f for f in glob.glob(out + "/*.json")]
            if not files:
                print(f"| {t} | | {args['--max-count']} | {wall:.1f} | | | | no result: {open(out + '/log').read()[-200:]!r} | | |")
                continue
            r = json.load(open(files[0]))
            timings = r.get("timings", {})
            tr = timings.get("train") or timings.get("train_0")  # scaling: rank 0's own timing
            if not r.get("success") or not tr:
                print(f"| {t} | | {args['--max-count']} | {wall:.1f} | | | | failed: {r.get('error')!r} | | |")
                continue
            rates = tr["rates"]
            window = rates[-20:-2] or rates
            perf = sum(window) / len(window)
            measured = tr["time"]
            share = min(1.0, cpu / wall) if wall > 0 else 1.0
            idle = perf / share if share > 0 else perf
            suggest = int(math.ceil(idle * a.target))
            print(f"| {t} | {args.get('--batch-size', '')} | {args['--max-count']} | {wall:.1f} | {measured:.1f} | "
                  f"{cpu:.1f} | {len(rates)} | {perf:.4g} {r.get('count_unit', '')} | {idle:.4g} | {suggest} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
