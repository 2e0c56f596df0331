"""Live: the scheduler/queue binds (seed 003 §12.4) — kernels may sit near the roof, yet TTFT is queueing."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

QUEUE_SHARE = 0.25  # queue time above a quarter of end-to-end latency


@rule
def live_queue(ev: Evidence) -> list[Finding]:
    """Requests wait in the engine's queue for a large share of their latency."""
    live = ev.live
    if live is None:
        return []
    waiting = live.gauges.get("requests_waiting", 0.0)
    queue, e2e = live.mean_latency_s("queue_s"), live.mean_latency_s("e2e_s")
    share = queue / e2e if queue is not None and e2e else None
    if not (waiting > 0 or (share is not None and share > QUEUE_SHARE)):
        return []
    if share is not None and share <= QUEUE_SHARE and waiting < 1:
        return []
    severity = Severity.CRITICAL if share is not None and share > 0.5 else Severity.WARN
    share_text = f"queue {share:.0%} of end-to-end latency" if share is not None else "queue time not exposed"
    return [
        Finding(
            code="live-queue-bound",
            severity=severity,
            title=f"Scheduler/queue-bound: {waiting:.0f} requests waiting, {share_text}",
            bottleneck="scheduler",
            evidence={
                "requests_waiting": waiting,
                "queue_s_mean": queue,
                "e2e_s_mean": e2e,
                "queue_share": share,
                "requests_running": live.gauges.get("requests_running"),
            },
            remedies=REMEDIES["scheduler"],
            check_first=CHECK_FIRST["scheduler"],
        )
    ]
