"""Misdiagnosis guard (seed 003 §16): 'bytes / theoretical bandwidth gives the latency'."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.core.points import Source
from rooftop.diagnose.engine import Evidence, rule

RATIO = 1.3


@rule
def guard_bandwidth_latency(ev: Evidence) -> list[Finding]:
    """Measured step ≥ 1.3× the roofline time of the same workload: the roof is a lower bound only."""
    roof_s = sum(p.time_s or 0.0 for p in ev.points if p.source is Source.ANALYTIC)
    step = ev.profile.step_time_s if ev.profile else None
    if not step or roof_s <= 0 or step / roof_s < RATIO:
        return []
    return [
        Finding(
            code="guard-roof-is-lower-bound",
            severity=Severity.INFO,
            title=(
                f"The measured step takes {step / roof_s:.1f}× the roofline time ({step * 1e3:.2f} ms vs "
                f"{roof_s * 1e3:.2f} ms): bytes ÷ bandwidth is a lower bound that ignores caches, access patterns, "
                "launches and dependencies — never a latency estimate"
            ),
            bottleneck="guard",
            evidence={"measured_step_s": step, "roofline_step_s": roof_s, "ratio": round(step / roof_s, 2)},
        )
    ]
