"""The GPU waits: idle gaps in a measured timeline, attributed to host work, synchronisation or copies."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES
from rooftop.units import seconds

IDLE_SHARE = 0.25  # below this, idle time is normal slack between kernels


@rule
def trace_idle_gaps(ev: Evidence) -> list[Finding]:
    """Flag a trace whose GPU is idle ≥ 25 % of its span; name the largest gap and what the host did."""
    tl = ev.timeline
    if tl is None or not tl.span_s:
        return []
    share = tl.idle_s / tl.span_s
    if share < IDLE_SHARE:
        return []
    gaps = tl.gap_host_s + tl.gap_sync_s + tl.gap_copy_s + tl.gap_other_s
    parts = (tl.gap_host_s, tl.gap_sync_s, tl.gap_copy_s)
    host_share, sync_share, copy_share = (part / gaps if gaps else 0.0 for part in parts)
    causes = {"while the host runs CPU ops": host_share, "in synchronisations": sync_share,
              "while memcpy/memset run (the kernels wait for data)": copy_share}  # fmt: skip
    cause = next((text for text, share in causes.items() if share >= 0.5), "")
    graphed = tl.kernels > 0 and tl.graph_kernels >= tl.kernels / 2
    remedies, captured = REMEDIES["host"], ""
    if graphed:  # already captured: the idle is around the replays; do not advise capturing again
        remedies = tuple(r for r in remedies if "CUDA graph" not in r.action)
        replays = f"{tl.graph_launches} CUDA-graph replay" + ("s hold" if tl.graph_launches != 1 else " holds")
        captured = f" ({replays} {tl.graph_kernels / tl.kernels:.0%} of the kernels: the step is already captured)"
    return [
        Finding(
            code="gpu-idle",
            severity=Severity.CRITICAL if share >= 0.5 else Severity.WARN,
            title=(
                f"GPU idle {share:.0%} of the {tl.span_s:.3g} s span; largest gap {seconds(tl.largest_gap_s)}"
                + (f", mostly {cause}" if cause else "")
                + captured
            ),
            bottleneck="host",
            evidence={
                "idle_s": tl.idle_s,
                "span_s": tl.span_s,
                "idle_share": round(share, 4),
                "largest_gap_s": tl.largest_gap_s,
                "largest_gap_start_us": tl.largest_gap_start_us,
                "gap_host_share": round(host_share, 3),
                "gap_sync_share": round(sync_share, 3),
                "gap_copy_share": round(copy_share, 3),
                "graph_kernel_share": round(tl.graph_kernels / tl.kernels, 3) if tl.kernels else 0.0,
            },
            remedies=remedies,
            check_first=CHECK_FIRST["host"],
        )
    ]
