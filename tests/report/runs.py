"""Runs the report tests draw (built in-process from the analytic engine)."""

from __future__ import annotations

from rooftop.api import analyze, workloads_for
from rooftop.core.artifact import Run
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset

H100 = get_roofs("h100-sxm")


def decode_run() -> Run:
    spec = load_preset("llama-3.1-8b")
    return analyze(spec, H100, workloads_for([Phase.DECODE], [1, 64], [2048], [2048], Workload()))
