"""Misdiagnosis guard (seed 003 §16): 'the roofline point got better, so the product got faster'."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule

MIN_BATCH = 8


@rule
def guard_roofline_point(ev: Evidence) -> list[Finding]:
    """Large decode batches: better intensity and MBU, but every sequence waits for the whole step."""
    t = ev.totals
    batch = ev.workload.get("batch")
    if t is None or t.phase != "decode" or not isinstance(batch, int) or batch < MIN_BATCH:
        return []
    return [
        Finding(
            code="guard-roofline-point-not-product",
            severity=Severity.INFO,
            title=(
                f"At batch {batch} the roofline point improves (intensity {t.intensity:.1f} FLOP/B), but each "
                f"sequence's time per output token is the whole step ({t.time_s * 1e3:.2f} ms): judge a change by "
                "TTFT, TPOT, goodput and tail latency under the same arrivals, not by the point alone"
            ),
            bottleneck="guard",
            evidence={"batch": batch, "tpot_s": t.time_s, "intensity": round(t.intensity, 2)},
        )
    ]
