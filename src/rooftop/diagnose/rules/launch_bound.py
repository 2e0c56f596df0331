"""Launch / host-bound step: a measured step whose time between operators is a large share (seed 003 §10)."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

GAP_SHARE_WARN = 0.3
GAP_SHARE_INFO = 0.15


@rule
def launch_bound(ev: Evidence) -> list[Finding]:
    """Gaps between ops (Python, dispatch, launch, idle device) ≥ 15 % of a profiled step."""
    prof = ev.profile
    share = prof.gap_share if prof else None
    if prof is None or share is None or share < GAP_SHARE_INFO or prof.gap_s is None or prof.step_time_s is None:
        return []
    return [
        Finding(
            code="launch-bound-step",
            severity=Severity.WARN if share >= GAP_SHARE_WARN else Severity.INFO,
            title=(
                f"{share:.0%} of the {ev.workload.get('phase')} step is time between operators "
                f"({prof.gap_s * 1e3:.2f} ms of {prof.step_time_s * 1e3:.2f} ms): host / dispatch / launch, "
                "which no roof explains"
            ),
            bottleneck="launch",
            evidence={"gap_s": prof.gap_s, "step_time_s": prof.step_time_s, "gap_share": round(share, 3)},
            remedies=REMEDIES["launch"],
            check_first=CHECK_FIRST["launch"],
        )
    ]
