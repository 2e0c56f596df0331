"""Communication exposed: collective time not hidden under compute (seed 001 scenario C)."""

from __future__ import annotations

from typing import Any

from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

EXPOSED_SHARE = 0.10  # of the GPU span
HEAVY_SHARE = 0.75  # communication kernels' union / busy time: reported (info) even when hidden


@rule
def trace_comm_exposed(ev: Evidence) -> list[Finding]:
    """Flag when collectives not overlapped by compute take ≥ 10 % of the span."""
    tl = ev.extra.get("timeline")
    if not isinstance(tl, dict) or not tl.get("nccl_s") or not tl.get("span_s"):
        return []
    exposed = tl["nccl_s"] - tl.get("comm_compute_overlap_s", 0.0)
    share = exposed / tl["span_s"]
    if share < EXPOSED_SHARE:
        return _hidden_but_heavy(tl)
    overlap = tl.get("comm_compute_overlap_s", 0.0) / tl["nccl_s"]
    top = (tl.get("collectives") or [{}])[0].get("collective", "")
    return [
        Finding(
            code="communication-exposed",
            severity="critical" if share >= 0.3 else "warn",
            title=(
                f"Collectives run {tl['nccl_s']:.3g} s, only {overlap:.0%} under compute: "
                f"{exposed:.3g} s exposed ({share:.0%} of the span; mostly {top or 'unknown'})"
            ),
            bottleneck="communication",
            evidence={
                "nccl_s": tl["nccl_s"],
                "comm_compute_overlap_s": tl.get("comm_compute_overlap_s", 0.0),
                "exposed_s": exposed,
                "exposed_share_of_span": round(share, 3),
                "nccl_kernels": tl.get("nccl_kernels"),
                "collectives": tl.get("collectives", []),
            },
            remedies=REMEDIES["communication"],
            check_first=CHECK_FIRST["communication"],
        )
    ]


def _hidden_but_heavy(tl: dict[str, Any]) -> list[Finding]:
    """Info: communication kernels fill most of the busy time, overlapped (they still hold SMs)."""
    busy = tl.get("busy_s") or 0.0
    if not busy or tl["nccl_s"] / busy < HEAVY_SHARE:
        return []
    overlap = tl.get("comm_compute_overlap_s", 0.0) / tl["nccl_s"]
    top = (tl.get("collectives") or [{}])[0].get("collective", "") or "unknown"
    return [
        Finding(
            code="communication-heavy",
            severity="info",
            title=(
                f"Communication kernels ({tl.get('nccl_kernels', 0)}, mostly {top}) run "
                f"{tl['nccl_s']:.3g} s, {tl['nccl_s'] / busy:.0%} of the GPU's busy time, "
                f"{overlap:.0%} of it under compute: hidden, but they share the SMs with it"
            ),
            bottleneck="communication",
            evidence={
                "nccl_s": tl["nccl_s"],
                "busy_s": busy,
                "comm_compute_overlap_s": tl.get("comm_compute_overlap_s", 0.0),
                "collectives": tl.get("collectives", []),
            },
            check_first=CHECK_FIRST["communication"],
        )
    ]
