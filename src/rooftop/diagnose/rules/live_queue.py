"""Live: the scheduler/queue binds (seed 003 §12.4) — kernels may sit near the roof, yet TTFT is queueing."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES
from rooftop.units import seconds

QUEUE_SHARE = 0.25  # queue time above a quarter of end-to-end latency


def _title(share: float | None, waiting: float, interval_s: float) -> str:
    """The share over the window first (the evidence), then the queue at the poll (a snapshot)."""
    if share is None:
        return f"Scheduler/queue-bound: {_waiting(waiting)} now, queue time not exposed"
    period = f"over the {seconds(interval_s)} window" if interval_s > 0 else "since the engine started"
    now = f"{_waiting(waiting)} now" if waiting >= 1 else "none waiting now"
    return f"Scheduler/queue-bound: queue {share:.0%} of end-to-end latency {period}; {now}"


def _waiting(n: float) -> str:
    return f"{n:.0f} request{'' if round(n) == 1 else 's'} waiting"


@rule
def live_queue(ev: Evidence) -> list[Finding]:
    """Requests wait in the engine's queue for a large share of their latency.

    The evidence is the queue's share of end-to-end latency over the window (lifetime means on a
    ``--once``); severity follows it. Requests waiting at the poll are a snapshot: they raise a
    warning on their own when the engine exposes no queue time, and an idle engine after a queued
    past keeps the share's severity with a title that says the queue is empty now.
    """
    live = ev.live
    if live is None:
        return []
    waiting = live.gauges.get("requests_waiting", 0.0)
    queue, e2e = live.mean_latency_s("queue_s"), live.mean_latency_s("e2e_s")
    share = queue / e2e if queue is not None and e2e else None
    if not (waiting >= 1 or (share is not None and share > QUEUE_SHARE)):
        return []
    severity = Severity.CRITICAL if share is not None and share > 0.5 else Severity.WARN
    return [
        Finding(
            code="live-queue-bound",
            severity=severity,
            title=_title(share, waiting, live.interval_s),
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
