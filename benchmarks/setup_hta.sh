#!/usr/bin/env bash
# Set-up for benchmarks/bench_import.py: HolisticTraceAnalysis in its OWN virtual environment,
# so its pandas/plotly stack never enters rooftop's. Run once: bash benchmarks/setup_hta.sh
# (HTA_VENV overrides the location; default /tmp/htavenv). Takes ~1-2 minutes on a warm pip cache.
set -euo pipefail
HTA_VENV="${HTA_VENV:-/tmp/htavenv}"
python3 -m venv "$HTA_VENV"
"$HTA_VENV/bin/pip" install -q --upgrade pip
"$HTA_VENV/bin/pip" install -q "holistictraceanalysis==0.5.0"
"$HTA_VENV/bin/python" -c "import hta; print('HTA ready in $HTA_VENV')"
