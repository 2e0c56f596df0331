"""Misdiagnosis guard (seed 003 §16): 'prefill is always compute-bound'."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.core.points import Source
from rooftop.diagnose.engine import Evidence, rule


@rule
def guard_prefill_compute(ev: Evidence) -> list[Finding]:
    """A prefill where most measured time sits in memory-bound operators."""
    t = ev.totals
    measured = [p for p in ev.points if p.source is Source.MEASURED and p.time_s]
    if t is None or t.phase != "prefill" or not measured:
        return []
    total = sum(p.time_s or 0.0 for p in measured)
    memory = sum(p.time_s or 0.0 for p in measured if p.bound == "memory")
    if total <= 0 or memory / total < 0.5:
        return []
    return [
        Finding(
            code="guard-prefill-not-compute-bound",
            severity=Severity.WARN,
            title=(
                f"This prefill is not compute-bound: {memory / total:.0%} of its measured time is in memory-bound "
                f"operators (prompt {ev.workload.get('prompt')}, batch {ev.workload.get('batch')}). Short prompts, "
                "small batches and inefficient attention keep prefill below the ridge"
            ),
            bottleneck="guard",
            evidence={"memory_bound_share": round(memory / total, 3), "prompt": ev.workload.get("prompt")},
        )
    ]
