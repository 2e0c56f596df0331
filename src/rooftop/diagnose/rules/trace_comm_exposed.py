"""Communication exposed: collective time not hidden under compute (seed 001 scenario C)."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.evidence.timeline import TimelineEvidence
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

EXPOSED_SHARE = 0.10  # of the GPU span
HEAVY_SHARE = 0.75  # communication kernels' union / busy time: reported (info) even when hidden


@rule
def trace_comm_exposed(ev: Evidence) -> list[Finding]:
    """Flag when collectives not overlapped by compute take ≥ 10 % of the span."""
    tl = ev.timeline
    if tl is None or not tl.nccl_s or not tl.span_s:
        return []
    exposed = tl.nccl_s - tl.comm_compute_overlap_s
    share = exposed / tl.span_s
    if share < EXPOSED_SHARE:
        return _hidden_but_heavy(tl)
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


def _hidden_but_heavy(tl: TimelineEvidence) -> list[Finding]:
    """Info: communication kernels fill most of the busy time, overlapped (they still hold SMs)."""
    if not tl.busy_s or tl.nccl_s / tl.busy_s < HEAVY_SHARE:
        return []
    overlap = tl.comm_compute_overlap_s / tl.nccl_s
    top = (tl.collectives or ({},))[0].get("collective", "") or "unknown"
    return [
        Finding(
            code="communication-heavy",
            severity=Severity.INFO,
            title=(
                f"Communication kernels ({tl.nccl_kernels or 0}, mostly {top}) run "
                f"{tl.nccl_s:.3g} s, {tl.nccl_s / tl.busy_s:.0%} of the GPU's busy time, "
                f"{overlap:.0%} of it under compute: hidden, but they share the SMs with it"
            ),
            bottleneck="communication",
            evidence={
                "nccl_s": tl.nccl_s,
                "busy_s": tl.busy_s,
                "comm_compute_overlap_s": tl.comm_compute_overlap_s,
                "collectives": list(tl.collectives),
            },
            check_first=CHECK_FIRST["communication"],
        )
    ]
