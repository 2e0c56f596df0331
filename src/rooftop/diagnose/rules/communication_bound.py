"""Tensor-parallel collectives on the critical path (seed 001 scenario C; seed 003 §12.3)."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

SHARE = 0.15


@rule
def communication_bound(ev: Evidence) -> list[Finding]:
    """Flag when link-bound operators take ≥ 15 % of the step (the whole step when bound='link')."""
    t = ev.totals
    if t is None or not t.time_s:
        return []
    link_time = sum((p.time_s or 0.0) for p in ev.points if p.bound == "link")
    share = link_time / t.time_s
    if share < SHARE:
        return []
    return [
        Finding(
            code="communication-bound",
            severity=Severity.CRITICAL if share >= 0.5 else Severity.WARN,
            title=(
                f"Tensor-parallel all-reduces take {share:.0%} of the step at the link roof "
                f"(tp={ev.workload.get('tp')})"
            ),
            bottleneck="communication",
            evidence={
                "link_time_s": link_time,
                "share_of_step": round(share, 3),
                "link_bytes": t.link_bytes,
                "tp": ev.workload.get("tp"),
            },
            remedies=REMEDIES["communication"],
            check_first=CHECK_FIRST["communication"],
        )
    ]
