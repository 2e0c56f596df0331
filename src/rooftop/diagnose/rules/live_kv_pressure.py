"""Live: KV-cache pressure — usage near full, or preemptions (requests evicted and recomputed)."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

HIGH_USAGE = 0.9


@rule
def live_kv_pressure(ev: Evidence) -> list[Finding]:
    """KV usage ≥ 90 % or any preemption in the window."""
    live = ev.live
    if live is None:
        return []
    usage = live.gauges.get("kv_usage")
    preempted = live.deltas.get("preemptions", 0.0)
    if not ((usage is not None and usage >= HIGH_USAGE) or preempted > 0):
        return []
    usage_text = f"KV cache {usage:.0%} full" if usage is not None else "KV usage not exposed"
    return [
        Finding(
            code="live-kv-pressure",
            severity=Severity.CRITICAL if preempted > 0 else Severity.WARN,
            title=f"KV-cache pressure: {usage_text}, {preempted:.0f} preemptions in the window",
            bottleneck="kv-capacity",
            evidence={
                "kv_usage": usage,
                "preemptions": preempted,
                "requests_running": live.gauges.get("requests_running"),
            },
            remedies=REMEDIES["kv-capacity"],
            check_first=CHECK_FIRST["kv-capacity"],
        )
    ]
