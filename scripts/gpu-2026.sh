#!/usr/bin/env bash
# The 2026 profile's device command (docs/gpu.md): on the GPU machine, after
# scripts/gpu-check.sh (same GPU_CHECK_WORK: its build and env.sh are reused;
# without them it builds first, GPU_CHECK_BUILD_ONLY=1), the transformer
# workloads at full size on the GPU, each next to its PyTorch eager twin on
# the same GPU with the same config, precision (bf16 autocast) and attention
# (SDPA): `milarun run gpt2` (d12, B 64, T 1024, llmc_gpt2 at
# GPU2026_SCALE) and `milarun run vit` (ViT-B/16, B 256), then
# bench/python/gpt2.py and vit.py --device cuda --full, then a table of
# C++ rate, eager rate, ratio, MFU and peak memory per test.
#   scripts/gpu-2026.sh            # on the GPU machine
#   scripts/gpu-2026.sh --dry      # CPU, tiny configs: do the runs and the twins still work? (ctest gpu_2026_dry)
# Env: OUT (default ./gpu-check-out), GPU_CHECK_WORK (default /tmp/gpu-check),
#      GPU2026_SCALE (llmc_gpt2 scale, default 0.1: 30 M training tokens),
#      GPU2026_STEPS (twin steps, default 100), PYTHON (default python3; --dry
#      /usr/bin/python3), MILARUN (--dry: default build/milarun).
# Writes $OUT/gpu-2026.txt (the table), $OUT/gpu-2026.log and the results
# under $OUT/results-2026/. Exit status 0 when every run and twin succeeded.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
dry=0
[ "${1:-}" = --dry ] && dry=1
[ $# -le $dry ] || { echo "gpu-2026.sh: unknown argument '${!#}' (only --dry)" >&2; exit 2; }
OUT=${OUT:-$repo/gpu-check-out}
mkdir -p "$OUT"
status=0
if [ $dry = 1 ]; then
  py=${PYTHON:-/usr/bin/python3}
  milarun=${MILARUN:-$repo/build/milarun}
  "$py" -c 'import torch' 2>/dev/null || { echo "gpu-2026.sh --dry: $py cannot import torch"; exit 77; }
  [ -x "$milarun" ] || { echo "gpu-2026.sh --dry: no $milarun (build it, or set MILARUN)" >&2; exit 2; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  device=(--no-cuda)
  twin_args=(--device cpu --threads 1 --warmup 2 --steps ${GPU2026_STEPS:-5})
  data=llmc_tiny256 scale=0.02
  gpt2_args=(--dataset llmc_tiny256 --batch-size 4 --seq-len 64 --n-layer 2 --n-embd 64 --n-head 4
             --vocab-size 256 --padded-vocab-size 256 --max-count 2560)
  vit_args=(--batch-size 8 --image-size 32 --patch-size 8 --dim 64 --depth 2 --heads 4 --mlp-dim 256
            --classes 10 --max-count 80)
  run_args=(--stop-at-count --canary-min-steps 100000)
else
  py=${PYTHON:-python3}
  work=${GPU_CHECK_WORK:-/tmp/gpu-check}
  if [ ! -x "$work/build/milarun" ]; then
    GPU_CHECK_BUILD_ONLY=1 OUT="$OUT/build-2026" GPU_CHECK_WORK="$work" scripts/gpu-check.sh ||
      { echo "gpu-2026.sh: the build failed ($OUT/build-2026/gpu-check.log)"; exit 1; }
  fi
  # shellcheck disable=SC1091
  source "$work/env.sh"
  milarun=$work/build/milarun
  device=(--cuda)
  twin_args=(--device cuda --full --warmup 10 --steps ${GPU2026_STEPS:-100})
  data=llmc_gpt2 scale=${GPU2026_SCALE:-0.1}
  gpt2_args=(--max-count 20000000)  # the profile's full-size defaults; about 20 s on an H200
  vit_args=(--max-count 60000)
  run_args=()
fi
exec > >(tee "$OUT/gpu-2026.log") 2>&1
res=$OUT/results-2026
mkdir -p "$res"
"$milarun" dataset "$data" -d "$work/data" --scale "$scale" || { echo "gpu-2026.sh: dataset $data failed"; exit 1; }
declare -A twin
for t in gpt2 vit; do
  args=("${gpt2_args[@]}")
  [ $t = vit ] && args=("${vit_args[@]}")
  echo "== milarun run $t ${device[*]} ${args[*]}"
  "$milarun" run $t -d "$work/data" -o "$res/2026.$t.J0.0.20260101-000000-000000.json" -- \
    "${device[@]}" "${args[@]}" "${run_args[@]}" || { echo "gpu-2026.sh: milarun run $t failed"; status=1; }
  echo "== bench/python/$t.py ${twin_args[*]}"
  data_arg=()
  [ $t = gpt2 ] && data_arg=(-d "$work/data")
  line=$(cd bench/python && "$py" $t.py "${data_arg[@]}" "${twin_args[@]}" 2>&1 | tee /dev/stderr | tail -1)
  case $line in
    "$t eager: "*) twin[$t]=$(echo "$line" | awk '{print $3}') ;;
    *) echo "gpu-2026.sh: the $t twin failed"; status=1 ;;
  esac
done
"$py" - "$res" "${twin[gpt2]:-nan}" "${twin[vit]:-nan}" >"$OUT/gpu-2026.txt" <<'PY' || status=1
import glob, json, math, sys
res, eager = sys.argv[1], {"gpt2": float(sys.argv[2]), "vit": float(sys.argv[3])}
unit = {"gpt2": "tokens/s", "vit": "images/s"}
print(f"{'test':<6} {'C++ rate':>12} {'eager':>12} {'ratio':>6} {'MFU':>6} {'peak MiB':>9}  unit, attention, precision")
for t in ("gpt2", "vit"):
    f = glob.glob(f"{res}/2026.{t}.J0.0.*.json")
    if not f:
        print(f"{t:<6} no result"); continue
    r = json.load(open(f[0]))
    m, tr = r.get("metrics", {}), r["timings"]["train"]
    rates = tr.get("rates") or [0]
    tail = rates[-max(1, len(rates) // 2):]  # the steady half of the slices
    rate = sum(tail) / len(tail)
    mfu = (m.get("mfu") or {}).get("value")
    peak = (m.get("peak_memory") or {}).get("bytes")
    ratio = rate / eager[t] if eager[t] > 0 and not math.isnan(eager[t]) else float("nan")
    print(f"{t:<6} {rate:>12.1f} {eager[t]:>12.1f} {ratio:>6.2f} {'-' if mfu is None else f'{100 * mfu:.1f}%':>6} "
          f"{'-' if peak is None else peak / 2**20:>9.0f}  {unit[t]}, {m.get('attention')}, {m.get('precision')}")
PY
cat "$OUT/gpu-2026.txt"
exit $status
