#!/usr/bin/env bash
# The prepared GPU check of issue 15 (one run, about 8 minutes on an H200). From the repo root:
#   bash benchmarks/gpu_check.sh            # OUT=./gpu-check unless the device tool sets it
# Needs python3 with a CUDA torch and transformers; msgspec and ijson come from .whl/ when there
# (the device machine reaches no registry). Roofs beside the datasheet (expect about 790 TFLOP/s
# bf16 GEMM, 4.3 TB/s copy counting read and write); profiles of llama-3.2-1b (b 1,16) and
# llama-3.1-8b (b 1,32) at prompt 512, context 2048, checked by benchmarks/gpu_verify.py;
# their torch traces imported; CUDA graphs off and on (benchmarks/gpu_graphs.py); Nsight
# Compute on a few decode kernels. Optional steps are skipped when the time budget is spent;
# ONLY=core runs the roofs and the profiles alone.
# Results land in $OUT/gpu.tar.gz, traces in $OUT/traces-{a,b}.tar, the log in $OUT/log.txt.
set -uo pipefail
OUT=${OUT:-gpu-check}
BUDGET=${BUDGET:-480}  # seconds for all steps; the tarball is made after them
W=$OUT/w
mkdir -p "$W"
exec > >(tee -a "$OUT/log.txt") 2>&1
T0=$SECONDS
say() { echo "== [$((SECONDS - T0)) s] $*"; }
left() { echo $((BUDGET - (SECONDS - T0))); }
# run SECONDS CMD...: at most that long (and never past the budget); log the exit code
run() {
  local t=$1 l
  shift
  l=$(left)
  ((t > l)) && t=$l
  if ((l < 15)); then say "SKIP (budget spent): $*"; return 0; fi
  say "$* (at most $t s)"
  timeout --kill-after=5 "$t" "$@"
  say "rc=$? for $1 $2 $3"
}
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site:$PWD/src
else
  export PYTHONPATH=$PWD/src
fi
export ROOFTOP_CACHE_DIR=$W/cache PYTHONUNBUFFERED=1
R="python3 -m rooftop"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$W/nvidia-smi.txt"
python3 -c "import torch, transformers, msgspec, ijson; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
'transformers', transformers.__version__, torch.cuda.get_device_name(0))"

run 150 sh -c "$R roofs measure --device cuda --json > $W/roofs.json"
python3 benchmarks/gpu_verify.py "$W/roofs.json" --datasheet h200-sxm | tee "$W/roofs-vs-datasheet.txt"
$R roofs show --device cuda > "$W/roofs-show.txt" 2>&1

P="--device cuda --dtype bf16 -p 512 -c 2048"
run 150 sh -c "$R profile -m llama-3.2-1b $P -b 1,16 --trace $W/p1b.json.gz -o $W/profile-1b.json > $W/profile-1b.txt"
python3 benchmarks/gpu_verify.py "$W/profile-1b.json" | tee "$W/verify-1b.txt"
for b in 1 16; do run 60 sh -c "$R import $W/p1b-b$b.json.gz -H h200-sxm -o $W/import-1b-b$b.json > $W/import-1b-b$b.txt"; done
run 150 sh -c "$R profile -m llama-3.1-8b $P -b 1,32 --trace $W/p8b.json.gz -o $W/profile-8b.json > $W/profile-8b.txt"
python3 benchmarks/gpu_verify.py "$W/profile-8b.json" | tee "$W/verify-8b.txt"
if [ "${ONLY:-}" != core ]; then  # ONLY=core: roofs and the two profiles alone (a short rerun)
run 40 sh -c "$R analyze -m llama-3.2-1b --dtype bf16 --phase decode -b 1,16 -c 2048 --calibrated cuda -o $W/analyze-calibrated-1b.json \
  > $W/analyze-calibrated-1b.txt"
run 30 sh -c "$R profile -m llama-cpu-small --device auto --dtype bf16 -b 1 -p 64 --steps 4 --no-calibrate -o $W/auto.json > $W/auto.txt"
run 40 sh -c "python3 benchmarks/gpu_l2_probe.py > $W/l2-probe.txt"
run 60 sh -c "$R import $W/p8b-b32.json.gz -H h200-sxm -o $W/import-8b-b32.json > $W/import-8b-b32.txt"
run 60 sh -c "python3 benchmarks/gpu_graphs.py $W > $W/graphs.txt"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
  "$NCU" --query-metrics --chip gh100 > "$W/ncu-metrics.txt" 2>&1
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum
  for m in $(grep -oE "^(sm__sass_thread_inst_executed_op_[hf](add|mul|fma)_pred_on|sm__ops_path_tensor_src_[a-z0-9_]+)" \
    "$W/ncu-metrics.txt" | sort -u); do M="$M,$m.sum"; done
  echo "ncu metrics: $M"
  run 90 "$NCU" --clock-control none -f -o "$W/ncu" --metrics "$M" -c 40 \
    python3 benchmarks/gpu_graphs.py "$W/ncu-scratch" --eager-only
  "$NCU" -i "$W/ncu.ncu-rep" --csv --page raw > "$W/ncu-raw.csv" 2> "$W/ncu.err"
  run 30 sh -c "$R import $W/ncu-raw.csv -H h200-sxm -o $W/import-ncu.json > $W/import-ncu.txt"
fi
fi
say "done"
rm -rf "$W/ncu-scratch" "$W/cache/"*.lock 2>/dev/null
# results in one tarball; each trace its own file (16 MiB each at most come back)
tar -C "$OUT" -czf "$OUT/gpu.tar.gz" --exclude='*.json.gz' --exclude='*.ncu-rep' w
mv "$W"/p1b-b*.json.gz "$W"/p8b-b*.json.gz "$OUT"/ 2>/dev/null
tar -C "$OUT" -cf "$OUT/graphs.tar" $(cd "$OUT" && ls w/graphs*.json.gz w/*.ncu-rep 2>/dev/null)
rm -rf "$W"
ls -la "$OUT"
