"""Communication exposed: collective time not hidden under compute (seed 001 scenario C)."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

EXPOSED_SHARE = 0.10  # of the GPU span


@rule
def trace_comm_exposed(ev: Evidence) -> list[Finding]:
    """Flag when collectives not overlapped by compute take ≥ 10 % of the span."""
    tl = ev.timeline
    if tl is None or not tl.nccl_s or not tl.span_s:
        return []
    exposed = tl.nccl_s - tl.comm_compute_overlap_s
    share = exposed / tl.span_s
    if share < EXPOSED_SHARE:
        return []
    overlap = tl.comm_compute_overlap_s / tl.nccl_s
    top = (tl.collectives or ({},))[0].get("collective", "")
    return [
        Finding(
            code="communication-exposed",
            severity=Severity.CRITICAL if share >= 0.3 else Severity.WARN,
            title=(
                f"Collectives run {tl.nccl_s:.3g} s, only {overlap:.0%} under compute: "
                f"{exposed:.3g} s exposed ({share:.0%} of the span; mostly {top or 'unknown'})"
            ),
            bottleneck="communication",
            evidence={
                "nccl_s": tl.nccl_s,
                "comm_compute_overlap_s": tl.comm_compute_overlap_s,
                "exposed_s": exposed,
                "exposed_share_of_span": round(share, 3),
                "nccl_kernels": tl.nccl_kernels,
                "collectives": list(tl.collectives),
            },
            remedies=REMEDIES["communication"],
            check_first=CHECK_FIRST["communication"],
        )
    ]
