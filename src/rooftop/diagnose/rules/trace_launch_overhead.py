"""Launch-overhead bound: many kernels shorter than the host call that launches them (seed 001 scenario D)."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

MIN_KERNELS = 100
SHORT_SHARE = 0.3  # share of kernels that run shorter than their launch call
SHORT_KERNEL_S = 20e-6  # a median kernel this short cannot hide a ~5-10 µs launch


@rule
def trace_launch_overhead(ev: Evidence) -> list[Finding]:
    """Flag when ≥ 30 % of kernels are shorter than their launch call and the median kernel is < 20 µs."""
    tl = ev.timeline
    if tl is None or tl.kernels < MIN_KERNELS:
        return []
    launch = tl.launch
    # Kernels replayed by a CUDA/HIP graph share one launch call: only eager launches are judged.
    eager = tl.kernels if launch.eager is None else launch.eager
    if eager < MIN_KERNELS:
        return []
    short, median = launch.shorter_than_launch_share, launch.kernel_median_s
    if short < SHORT_SHARE or median >= SHORT_KERNEL_S:
        return []
    replayed = tl.graph_kernels
    call_us = (launch.call_median_s or 0.0) * 1e6
    return [
        Finding(
            code="launch-overhead",
            severity=Severity.WARN,
            title=(
                f"{short:.0%} of {eager} eagerly launched kernels run shorter than their launch call "
                f"(median kernel {median * 1e6:.3g} µs, median launch call {call_us:.3g} µs"
                + (f"; {replayed} CUDA-graph replayed kernels not counted)" if replayed else ")")
            ),
            bottleneck="launch",
            evidence={
                "kernels": tl.kernels,
                "eager_kernels": eager,
                "shorter_than_launch_share": round(short, 3),
                "kernel_median_s": median,
                "launch_call_median_s": launch.call_median_s,
                "launch_delay_median_s": launch.delay_median_s,
                "graph_kernels": tl.graph_kernels,
                "graph_launches": tl.graph_launches,
            },
            remedies=REMEDIES["launch"],
            check_first=CHECK_FIRST["launch"],
        )
    ]
