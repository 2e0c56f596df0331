"""Evidence for the live_* rules: the `live` section that api/window.analyse_window hands them."""

from __future__ import annotations

from typing import Any

from rooftop.diagnose.engine import Evidence
from rooftop.diagnose.evidence.live import LiveEvidence, LiveUtilisation
from rooftop.hardware.catalog import get_roofs


def live_evidence(
    gauges: dict[str, float] | None = None,
    deltas: dict[str, float] | None = None,
    latency: dict[str, dict[str, float]] | None = None,
    accounting: dict[str, Any] | None = None,
    tp: int = 1,
    interval_s: float = 10.0,
) -> Evidence:
    """A live window (10 s; 0: a single scrape, since the engine started) with the given gauges, counters, latencies."""
    live = LiveEvidence(
        gauges or {},
        deltas or {},
        latency or {},  # type: ignore[arg-type]
        interval_s,
        LiveUtilisation.from_dict(accounting) if accounting is not None else None,
    )
    return Evidence((), get_roofs("h100-sxm"), None, {"engine": "vllm", "tp": tp}, live=live)
