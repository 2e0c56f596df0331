"""Evidence for the live_* rules: the `live` extra that api/window.analyse_window hands them."""

from __future__ import annotations

from typing import Any

from rooftop.diagnose.engine import Evidence
from rooftop.hardware.catalog import get_roofs


def live_evidence(
    gauges: dict[str, float] | None = None,
    deltas: dict[str, float] | None = None,
    latency: dict[str, dict[str, float]] | None = None,
    accounting: dict[str, Any] | None = None,
    tp: int = 1,
) -> Evidence:
    """A 10 s live window with the given gauges, counter increases, latency means and accounting."""
    live: dict[str, Any] = {
        "gauges": gauges or {},
        "deltas": deltas or {},
        "latency": latency or {},
        "interval_s": 10.0,
    }
    if accounting is not None:
        live["accounting"] = accounting
    return Evidence((), get_roofs("h100-sxm"), None, {"engine": "vllm", "tp": tp}, {"live": live})
