"""Guard: numbers outside their physical range are flagged, never printed as if they were results.

MFU, HFU and MBU are shares of a roof: below 0 or far above 1 they say the inputs are wrong (a
roof given too low, a counter that wrapped, a hostile file), not that the device beat physics.
Likewise a negative or non-finite time, FLOP count or byte count. The check allows 5 % above a
roof for measurement noise and datasheet rounding.
"""

from __future__ import annotations

import math

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule

ROOF_SLACK = 1.05  # a share of a roof up to 105 % is noise; above, something is wrong


def _out_of_range(ev: Evidence) -> dict[str, float]:
    """Field -> value for every total or point number outside its physical range."""
    bad: dict[str, float] = {}
    t = ev.totals
    if t is not None:
        for name in ("mfu", "hfu", "mbu"):
            value = float(getattr(t, name))
            if not math.isnan(value) and not 0.0 <= value <= ROOF_SLACK:
                bad[name] = value
        for name in ("time_s", "tokens", "flops", "bytes"):
            value = float(getattr(t, name))
            if not math.isnan(value) and not 0.0 <= value < math.inf:
                bad[name] = value
    for p in ev.points:
        numbers: tuple[tuple[str, float | None], ...] = (("flops", p.flops), ("bytes", p.bytes), ("time_s", p.time_s))
        for name, number in numbers:
            if number is not None and not math.isnan(number) and not 0.0 <= number < math.inf:
                bad.setdefault(f"{p.label}.{name}", float(number))
    return bad


@rule
def guard_physical_range(ev: Evidence) -> list[Finding]:
    """A critical finding naming every number outside its physical range (at most five shown)."""
    bad = _out_of_range(ev)
    if not bad:
        return []
    shown = ", ".join(f"{k} {v:.4g}" for k, v in list(bad.items())[:5])
    more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
    return [
        Finding(
            code="guard-out-of-physical-range",
            severity=Severity.CRITICAL,
            title=(
                f"Numbers outside their physical range: {shown}{more}. "
                "Shares of a roof lie in 0..100 %, times and counts are ≥ 0; check the roofs "
                "(--peak-tflops, --bandwidth, the catalog) and the input files before reading the rest"
            ),
            bottleneck="guard",
            evidence={k: (v if math.isfinite(v) else str(v)) for k, v in bad.items()},
            check_first="the roofs used (rooftop hardware show) and the source of the counts",
        )
    ]
