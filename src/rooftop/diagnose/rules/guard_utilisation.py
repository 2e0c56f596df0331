"""Misdiagnosis guard (seed 003 §16): 'utilisation is high, so it is compute-bound'."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule


@rule
def guard_utilisation(ev: Evidence) -> list[Finding]:
    """A busy device (few gaps) whose measured step is memory-bound: busy is not compute-bound."""
    prof = ev.profile
    t = ev.totals
    if prof is None or t is None or not t.bound.is_memory:
        return []
    busy = 1.0 - (prof.gap_share if prof.gap_share is not None else 1.0)
    if busy < 0.7:
        return []
    return [
        Finding(
            code="guard-utilisation-not-compute",
            severity=Severity.INFO,
            title=(
                f"The device was busy {busy:.0%} of the step, yet it is memory-bound: "
                f"MFU {t.mfu:.1%}, MBU {t.mbu:.0%}. "
                "Utilisation says something ran, not that the compute units were the limit; look at achieved FLOP/s "
                "and bytes"
            ),
            bottleneck="guard",
            evidence={"busy_share": round(busy, 3), "mfu": round(t.mfu, 4), "mbu": round(t.mbu, 3)},
        )
    ]
