"""Measured operators far below their roof, where they matter (seed 003 §11: roof efficiency)."""

from __future__ import annotations

from rooftop.core.findings import Finding
from rooftop.core.points import Source
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

MIN_SHARE = 0.03
MAX_EFFICIENCY = 0.3


@rule
def below_roof(ev: Evidence) -> list[Finding]:
    """Operators with ≥ 3 % of the step at < 30 % of the attainable performance at their intensity."""
    measured = [p for p in ev.points if p.source is Source.MEASURED and p.time_s]
    step = sum(p.time_s or 0.0 for p in measured)
    if not measured or step <= 0:
        return []
    slow = []
    for p in measured:
        share = (p.time_s or 0.0) / step
        eff = p.roof_efficiency(ev.roofs)
        if share >= MIN_SHARE and eff < MAX_EFFICIENCY:
            slow.append((p.label, round(share, 3), round(eff, 3), p.bound))
    if not slow:
        return []
    names = ", ".join(f"{label} ({eff:.0%} of its roof, {share:.0%} of the step)" for label, share, eff, _ in slow)
    return [
        Finding(
            code="operators-below-roof",
            severity="warn",
            title=f"Operators far below their roof: {names}",
            bottleneck="kernel-efficiency",
            evidence={"operators": [{"op": s[0], "share": s[1], "roof_efficiency": s[2], "bound": s[3]} for s in slow]},
            remedies=REMEDIES["kernel-efficiency"],
            check_first=CHECK_FIRST["kernel-efficiency"],
        )
    ]
