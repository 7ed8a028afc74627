#!/usr/bin/env python3
"""PyTorch eager twins of the GPU-heavy tests of profiles/standard.json, run on
the same GPU after scripts/gpu-check.sh, and the C++/eager ratio per test.

Each twin trains what our workload trains (src/workloads/*.cpp, the original's
code: the twins in this folder) with the profile's batch size, precision,
loader workers and threads, the same device syncs (at slice ends, none for
convnet) and host reads, measured as milarun measures: perf = mean of
rates[-20:-2] of 0.5 s slices (original_loop.py). A time budget (--budget s)
is shared among the tests by weight; each twin stops at its deadline (or at
the profile's --max-count). The C++ figure is the same perf from gpu-check's
results (--results, the result files of `milarun jobs`).

  gpu_twins.py --data DIR --results DIR --out DIR --budget 200 [--tests a,b]
  gpu_twins.py --dry --data DIR [--results DIR] --out DIR    # CPU, tiny sizes

--dry runs every twin on the CPU with tiny sizes and counts (the float16 twins
with bfloat16 storage: a CPU has no float16 convolutions) and fails unless each
counted its examples with a finite loss: CI's check that the twins still run.
Writes OUT/twins.json (every line) and OUT/twins.txt (the table). Exit 1 when a
twin failed.
"""
import argparse
import json
import math
import os
import re
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# name: (runner, share weight, cudnn.benchmark as our workload, dry-run arguments)
TESTS = {
    "convnet": ("convnet", 1.4, True, ["--arch", "resnet18", "--batch-size", "2", "--image-size", "64"]),
    "convnet_fp16": ("convnet", 1.4, True, ["--arch", "resnet18", "--batch-size", "2", "--image-size", "64",
                                             "--half-dtype", "bfloat16"]),
    "dcgan": ("dcgan", 1.0, True, ["--batch-size", "2"]),
    "fast_style": ("fast_style", 1.0, False, ["--batch-size", "2", "--image-size", "32", "--style-size", "32"]),
    "ssd": ("ssd", 1.5, True, ["--batch-size", "1"]),
    "translator": ("loops.translator", 1.2, False, ["--batch-size", "4", "--hidden-size", "32", "--max-size", "300"]),
    "wlm": ("loops.wlm", 0.8, False, ["--batch-size", "4", "--emsize", "16", "--nhid", "16", "--bptt", "8"]),
    "wlmfp16": ("loops.wlm", 0.8, False, ["--batch-size", "4", "--emsize", "16", "--nhid", "16", "--bptt", "8",
                                         "--half-dtype", "bfloat16"]),
    "vae": ("loops.vae", 0.7, False, ["--batch-size", "8"]),
    "reso": ("reso", 0.8, False, ["--batch-size", "2"]),
}
# Profile flags each twin takes as they are (the rest are the workload's own defaults, or below).
PASSED = ["--batch-size", "--workers", "--arch", "--lr", "--half", "--image-size", "--style-size", "--emsize",
          "--nhid", "--dropout", "--model", "--upscale-factor"]


def profile_argv(name, profile):
    args = profile[name]["arguments"]
    argv = []
    for flag in PASSED:
        if flag not in args or args[flag] is False:
            continue
        argv += [flag] if args[flag] is True else [flag, str(args[flag])]
    if name == "wlmfp16":
        argv.append("--fp16")
    return argv, int(args.get("--max-count", 10 ** 9))


def runner(spec):
    if spec.startswith("loops."):
        import gpu_twin_loops
        return getattr(gpu_twin_loops, spec.split(".", 1)[1])
    return __import__(spec).main


def cpp_perf(results, name):
    """Mean over the test's result files of mean(rates[-20:-2]) (all rates when fewer), as `milarun summary`."""
    perfs = []
    pattern = re.compile(r"(^|\.)" + re.escape(name) + r"\.J[0-9][^/]*\.json$")
    for root, _, files in os.walk(results or "/nonexistent"):
        for f in files:
            if not pattern.search(f) or ".FAIL." in f:
                continue
            doc = json.load(open(os.path.join(root, f)))
            t = doc.get("timings", {})
            rates = (t.get("train") or t.get("train_0") or {}).get("rates") or []
            window = rates[-20:-2] or rates
            if doc.get("success", True) and window:
                perfs.append(sum(window) / len(window))
    return sum(perfs) / len(perfs) if perfs else None


def run_one(name, argv):
    import torch
    import original_loop
    torch.backends.cudnn.benchmark = TESTS[name][2]
    original_loop.LAST_REPORT.clear()
    try:
        line = dict(runner(TESTS[name][0])(argv) or {})
        line = line or dict(original_loop.LAST_REPORT)
    except Exception as e:  # one twin's failure costs its row, not the table
        traceback.print_exc()
        line = {"error": f"{type(e).__name__}: {e}"}
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return line


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--results")
    p.add_argument("--out", required=True)
    p.add_argument("--budget", type=float, default=200, help="seconds for all the twins together")
    p.add_argument("--tests", default=",".join(TESTS))
    p.add_argument("--profile", default=os.path.join(HERE, "..", "..", "profiles", "standard.json"))
    p.add_argument("--dry", action="store_true")
    a = p.parse_args()
    names = [n for n in a.tests.split(",") if n]
    unknown = [n for n in names if n not in TESTS]
    if unknown:
        sys.exit(f"gpu_twins.py: --tests: unknown {', '.join(unknown)} (known: {', '.join(TESTS)})")
    profile = json.load(open(a.profile))
    os.makedirs(a.out, exist_ok=True)
    t0, lines, failed = time.time(), {}, []
    for k, name in enumerate(names):
        argv, max_count = profile_argv(name, profile)
        if a.dry:
            argv = TESTS[name][3] + (["--fp16"] if name == "wlmfp16" else []) + \
                (["--half"] if name == "convnet_fp16" else [])
            max_count = (1 if name == "ssd" else 2) * int(argv[argv.index("--batch-size") + 1])  # steps
        else:
            left = a.budget - (time.time() - t0) - 5  # 5 s for the table
            share = left * TESTS[name][1] / sum(TESTS[n][1] for n in names[k:])
            argv += ["--cuda", "--deadline", str(time.time() + share)]
        argv += ["--dataroot", a.data, "--max-count", str(max_count)]
        print(f"== {name}: {' '.join(argv)}", flush=True)
        line = run_one(name, argv)
        line.update(test=name, argv=argv, cpp=cpp_perf(a.results, name))
        lines[name] = line
        ok = "error" not in line and line.get("count", 0) >= (max_count if a.dry else 1) and \
            math.isfinite(line.get("loss", 0.0))
        if not ok:
            failed.append(name)
    write(a.out, lines, failed)
    return 1 if failed else 0


def write(out, lines, failed):
    rows = ["| test | eager twin (examples/s) | slices | C++ milarun (examples/s) | C++/eager |", "|---|---|---|---|---|"]
    for name, l in lines.items():
        eager, cpp = l.get("perf"), l.get("cpp")
        good = eager is not None and math.isfinite(eager) and eager > 0
        ratio = f"{cpp / eager:.2f}" if good and cpp else "-"
        shown = f"{eager:.2f}" if good else l.get("error", "-")
        rows.append(f"| {name} | {shown} | {l.get('slices', '-')} | {f'{cpp:.2f}' if cpp else '-'} | {ratio} |")
    if failed:
        rows.append(f"failed: {' '.join(failed)}")
    text = "\n".join(rows)
    print(text)
    open(os.path.join(out, "twins.txt"), "w").write(text + "\n")
    json.dump(lines, open(os.path.join(out, "twins.json"), "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
