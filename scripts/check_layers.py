#!/usr/bin/env python3
"""Fails when an #include runs against the layering (docs/architecture.md, "Layers").

Each folder of src/ may include only the folders listed for it below (and
itself); torch headers (<torch/...>, <ATen/...>, <c10/...>) only in the folders
marked torch. Run by ctest (layering_test) on every build; prints one line per
offending include, `FILE:LINE: <folder> may not include "<target>/..."`, and
exits 1, or prints the table it checked and exits 0.
"""
import pathlib
import re
import sys

# folder: (folders it may include, torch allowed)
LAYERS = {
    "sys": (set(), False),
    "devices": ({"sys"}, False),
    "measure": ({"sys"}, False),
    "results": ({"sys"}, False),
    "fetch": ({"sys", "results"}, False),
    "launch": ({"sys", "devices"}, False),
    "monitor": ({"sys", "devices"}, False),
    "report": ({"sys", "measure", "results"}, False),
    "store": ({"sys", "measure", "results", "report"}, False),
    "suite": ({"sys", "devices", "fetch", "launch", "measure", "monitor", "results", "report", "store"}, False),
    "compat": (set(), True),
    "envs": ({"sys"}, False),
    "data": ({"sys", "fetch", "results", "compat"}, True),
    "models": ({"sys", "compat"}, True),
    "training": ({"sys", "compat", "data", "models", "measure", "launch", "results", "devices", "generated"}, True),
    "workloads": ({"sys", "compat", "data", "envs", "models", "measure", "launch", "monitor", "results",
                   "devices", "generated", "training"}, True),
    "run": ({"sys", "compat", "data", "devices", "envs", "launch", "measure", "models", "monitor", "results",
             "training", "workloads"}, True),
    "cli": ({"sys", "compat", "data", "devices", "fetch", "launch", "measure", "monitor", "report", "results",
             "run", "store", "suite", "training", "workloads"}, False),
}
CORE = [f for f, (_, torch) in LAYERS.items() if not torch and f not in ("cli",)]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
TORCH = re.compile(r"^(torch|ATen|c10|caffe2)/")


def main(root):
    src = pathlib.Path(root) / "src"
    bad = []
    folders = sorted(p.name for p in src.iterdir() if p.is_dir())
    for folder in folders:
        if folder not in LAYERS:
            bad.append(f"src/{folder}: a folder the layering does not know; add it to scripts/check_layers.py and "
                       "docs/architecture.md")
            continue
        allowed, torch = LAYERS[folder]
        for path in sorted((src / folder).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h"):
                continue
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(2)
                rel = path.relative_to(root)
                if TORCH.match(target) and not torch:
                    bad.append(f"{rel}:{n}: {folder} may not include <{target}> (torch-free layer)")
                elif m.group(1) == '"' and "/" in target:
                    top = target.split("/", 1)[0]
                    if top != folder and top in LAYERS | {"generated": None} and top not in allowed:
                        bad.append(f'{rel}:{n}: {folder} may not include "{target}"')
    for b in bad:
        print(b)
    if bad:
        return 1
    print(f"layers: {len(folders)} folders of src/ follow the table ({', '.join(CORE)} torch-free)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
