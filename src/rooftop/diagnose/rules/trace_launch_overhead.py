"""Launch-overhead bound: many kernels shorter than the host call that launches them (seed 001 scenario D)."""

from __future__ import annotations

from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

MIN_KERNELS = 100
SHORT_SHARE = 0.3  # share of kernels that run shorter than their launch call
SHORT_KERNEL_S = 20e-6  # a median kernel this short cannot hide a ~5-10 µs launch


@rule
def trace_launch_overhead(ev: Evidence) -> list[Finding]:
    """Flag when ≥ 30 % of kernels are shorter than their launch call and the median kernel is < 20 µs."""
    tl = ev.extra.get("timeline")
    if not isinstance(tl, dict) or tl.get("kernels", 0) < MIN_KERNELS:
        return []
    launch = tl.get("launch", {})
    # Kernels replayed by a CUDA/HIP graph share one launch call: only eager launches are judged.
    if launch.get("eager", tl["kernels"]) < MIN_KERNELS:
        return []
    short = launch.get("shorter_than_launch_share", 0.0)
    median = launch.get("kernel_median_s", 1.0)
    if short < SHORT_SHARE or median >= SHORT_KERNEL_S:
        return []
    graphs = tl.get("cuda_graph", {})
    eager = launch.get("eager", tl["kernels"])
    replayed = graphs.get("graph_kernels", 0)
    call_us = launch.get("call_median_s", 0.0) * 1e6
    return [
        Finding(
            code="launch-overhead",
            severity="warn",
            title=(
                f"{short:.0%} of {eager} eagerly launched kernels run shorter than their launch call "
                f"(median kernel {median * 1e6:.3g} µs, median launch call {call_us:.3g} µs"
                + (f"; {replayed} CUDA-graph replayed kernels not counted)" if replayed else ")")
            ),
            bottleneck="launch",
            evidence={
                "kernels": tl["kernels"],
                "eager_kernels": eager,
                "shorter_than_launch_share": round(short, 3),
                "kernel_median_s": median,
                "launch_call_median_s": launch.get("call_median_s"),
                "launch_delay_median_s": launch.get("delay_median_s"),
                "graph_kernels": graphs.get("graph_kernels", 0),
                "graph_launches": graphs.get("graph_launches", 0),
            },
            remedies=REMEDIES["launch"],
            check_first=CHECK_FIRST["launch"],
        )
    ]
