#!/usr/bin/env bash
# One prepared GPU check (≤ 8 min): H200 roofs (expect ≈ 790 TFLOP/s bf16 GEMM, ≈ 4.3 TB/s copy r+w),
# then llama-3.2-1b bf16 prefill + decode profiles. Run from the repo root on a CUDA machine with
# torch==2.13.0 (CUDA build) and transformers installed. Output goes to $OUT (or ./gpu-check).
set -euo pipefail
OUT=${OUT:-gpu-check}
mkdir -p "$OUT"
export ROOFTOP_CACHE_DIR="$OUT/cache"
PY=${PY:-python}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$OUT/nvidia-smi.txt"
timeout 180 $PY -m rooftop roofs measure --device cuda --quick --json > "$OUT/roofs.json"
$PY -m rooftop roofs show --device cuda | tee "$OUT/roofs.txt"
timeout 240 $PY -m rooftop profile -m llama-3.2-1b --device cuda --dtype bf16 -b 1 -p 2048 --steps 32 \
  --trace "$OUT/llama-3.2-1b-b1.json.gz" -o "$OUT/profile-b1.json" | tee "$OUT/profile-b1.txt"
timeout 120 $PY -m rooftop profile -m llama-3.2-1b --device cuda --dtype bf16 -b 16 -p 512 --steps 16 \
  --trace "$OUT/llama-3.2-1b-b16.json.gz" -o "$OUT/profile-b16.json" | tee "$OUT/profile-b16.txt"
