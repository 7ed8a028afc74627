#!/usr/bin/env bash
# The 2026 profile's device command (docs/gpu.md): on the GPU machine, after
# scripts/gpu-check.sh (same GPU_CHECK_WORK: its build and env.sh are reused;
# without them it builds first, GPU_CHECK_BUILD_ONLY=1), the four 2026
# workloads at full size on the GPU, each next to its PyTorch eager twin on
# the same GPU with the same config, precision (bf16 autocast) and attention
# (SDPA): `milarun run gpt2` (d12, B 64, T 1024, llmc_gpt2, 20 M tokens),
# `milarun run vit` (ViT-B/16, B 256, 60 000 images), `milarun run llama`
# (Llama-3.2-1B shape, B 8, T 2048, llmc_llama3, 1 M tokens) and `milarun run
# dit` (DiT-B/2, B 256, 50 000 images), the token datasets generated at
# GPU2026_SCALE; each followed by bench/python/TEST.py --device cuda --full;
# then a table of C++ rate, eager rate, ratio, MFU and peak memory per test.
#   scripts/gpu-2026.sh            # on the GPU machine (about 4 min on an H200)
#   scripts/gpu-2026.sh --dry      # CPU, tiny configs: do the runs and the twins still work? (ctest gpu_2026_dry)
# Env: OUT (default ./gpu-check-out), GPU_CHECK_WORK (default /tmp/gpu-check),
#      GPU2026_SCALE (token dataset scale, default 0.1: 30 M training tokens
#      each), GPU2026_STEPS (twin steps, default 100), PYTHON (default
#      python3; --dry /usr/bin/python3), MILARUN (--dry: default build/milarun).
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
tests=(gpt2 vit llama dit)
declare -A args twin  # per test: the run's arguments (no spaces inside one), the twin's rate
if [ $dry = 1 ]; then
  py=${PYTHON:-/usr/bin/python3}
  milarun=${MILARUN:-$repo/build/milarun}
  "$py" -c 'import torch' 2>/dev/null || { echo "gpu-2026.sh --dry: $py cannot import torch"; exit 77; }
  [ -x "$milarun" ] || { echo "gpu-2026.sh --dry: no $milarun (build it, or set MILARUN)" >&2; exit 2; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  device=(--no-cuda)
  twin_args=(--device cpu --threads 1 --warmup 2 --steps ${GPU2026_STEPS:-5})
  datasets=(llmc_tiny256) scale=0.02
  lm="--dataset llmc_tiny256 --batch-size 4 --seq-len 64 --n-layer 2 --n-embd 64 --n-head 4 --vocab-size 256"
  args[gpt2]="$lm --padded-vocab-size 256 --max-count 2560"
  args[llama]="$lm --n-kv-head 2 --ffn-hidden 192 --max-count 2560"
  images="--batch-size 8 --dim 64 --depth 2 --heads 4 --mlp-dim 256 --classes 10 --max-count 80"
  args[vit]="$images --image-size 32 --patch-size 8"
  args[dit]="$images --input-size 8 --patch-size 2 --in-channels 4"
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
  datasets=(llmc_gpt2 llmc_llama3) scale=${GPU2026_SCALE:-0.1}
  # The profile's full-size defaults, shorter counts: about 20 s for gpt2 on an H200.
  args[gpt2]="--max-count 20000000" args[vit]="--max-count 60000"
  args[llama]="--max-count 1000000" args[dit]="--max-count 50000"  # llama: 62 steps of B 8 x T 2048
  run_args=()
fi
exec > >(tee "$OUT/gpu-2026.log") 2>&1
res=$OUT/results-2026
mkdir -p "$res"
"$milarun" dataset "${datasets[@]}" -d "$work/data" --scale "$scale" ||
  { echo "gpu-2026.sh: dataset ${datasets[*]} failed"; exit 1; }
for t in "${tests[@]}"; do
  read -ra a <<<"${args[$t]}"
  echo "== milarun run $t ${device[*]} ${a[*]}"
  "$milarun" run "$t" -d "$work/data" -o "$res/2026.$t.J0.0.20260101-000000-000000.json" -- \
    "${device[@]}" "${a[@]}" "${run_args[@]}" || { echo "gpu-2026.sh: milarun run $t failed"; status=1; }
  echo "== bench/python/$t.py ${twin_args[*]}"
  data_arg=()
  case $t in gpt2 | llama) data_arg=(-d "$work/data") ;; esac
  line=$(cd bench/python && "$py" "$t.py" "${data_arg[@]}" "${twin_args[@]}" 2>&1 | tee /dev/stderr | tail -1)
  case $line in
    "$t eager: "*) twin[$t]=$(echo "$line" | awk '{print $3}') ;;
    *) echo "gpu-2026.sh: the $t twin failed"; status=1 ;;
  esac
done
rates=()
for t in "${tests[@]}"; do rates+=("$t=${twin[$t]:-nan}"); done
"$py" - "$res" "${rates[@]}" >"$OUT/gpu-2026.txt" <<'PY' || status=1
import glob, json, math, sys
res, eager = sys.argv[1], {k: float(v) for k, v in (a.split("=") for a in sys.argv[2:])}
unit = {"gpt2": "tokens/s", "llama": "tokens/s", "vit": "images/s", "dit": "images/s"}
print(f"{'test':<6} {'C++ rate':>12} {'eager':>12} {'ratio':>6} {'MFU':>6} {'peak MiB':>9}  unit, attention, precision")
for t in eager:
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
