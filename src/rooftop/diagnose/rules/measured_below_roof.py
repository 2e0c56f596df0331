"""Measured kernels far below the roofline at their own intensity (trace shapes or ncu counters)."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.core.points import RooflinePoint, Source
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

EFFICIENCY = 0.3  # achieved / attainable below this is "far below"
MIN_TIME_SHARE = 0.02  # ignore kernels that do not matter to the total
MEASURED = {Source.TRACE, Source.NCU, Source.MEASURED}


def _efficiency(p: RooflinePoint, ev: Evidence) -> float | None:
    if not p.time_s or (p.flops <= 0 and p.bytes <= 0) or not ev.roofs.has_memory(p.level):
        return None
    if p.flops > 0 and not ev.roofs.has_compute(p.dtype):
        return None
    return float(p.roof_efficiency(ev.roofs))


@rule
def measured_below_roof(ev: Evidence) -> list[Finding]:
    """List measured kernels (≥ 2 % of measured time) that reach < 30 % of the roof at their intensity."""
    measured = [p for p in ev.points if p.source in MEASURED and p.time_s]
    total = sum(p.time_s or 0.0 for p in measured if p.level == "hbm")
    slow = []
    for p in measured:
        eff = _efficiency(p, ev)
        if eff is not None and eff < EFFICIENCY and (p.time_s or 0.0) >= MIN_TIME_SHARE * total:
            slow.append((p, eff))
    if not slow:
        return []
    slow.sort(key=lambda pe: -(pe[0].time_s or 0.0))
    worst = slow[0]
    return [
        Finding(
            code="below-roof",
            severity=Severity.WARN,
            title=(
                f"{len(slow)} measured kernel(s) reach < {EFFICIENCY:.0%} of the roof at their intensity; "
                f"largest: {worst[0].label[:60]} at {worst[1]:.0%} ({worst[0].level})"
            ),
            bottleneck=_bottleneck(worst[0], ev),
            evidence={
                "kernels": [
                    {
                        "label": p.label,
                        "level": p.level,
                        "roof_efficiency": round(e, 3),
                        "time_s": p.time_s,
                        "intensity": p.intensity if p.bytes else None,
                    }
                    for p, e in slow[:10]
                ],
            },
            remedies=REMEDIES["kernel-efficiency"],
            check_first=CHECK_FIRST["kernel-efficiency"],
        )
    ]


def _bottleneck(p: RooflinePoint, ev: Evidence) -> str:
    """'compute' right of the ridge, 'memory-efficiency' left of it or without FLOPs."""
    if p.flops > 0 and p.intensity >= ev.roofs.ridge(p.dtype, p.level):
        return "compute"
    return "memory-efficiency"
