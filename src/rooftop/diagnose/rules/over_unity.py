"""Utilisation above 100 %: a number that cannot be true as counted. Flag it with its likely cause."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.units import seconds

CAUSES = {
    "mbu": (
        "fewer bytes came from memory than counted (weights or KV served from cache: L2/L3 on a small "
        "model, prefix-cache hits), the memory roof is too low (a measured roof below the device's peak), "
        "or the model or its dtype differs from the one analysed"
    ),
    "mfu": (
        "fewer FLOPs ran than counted (skipped masked attention blocks, speculative or cached tokens counted "
        "as computed), the compute roof is too low (a measured roof below the peak, a dtype on a faster unit), "
        "or the model or its dtype differs from the one analysed"
    ),
}


@rule
def over_unity(ev: Evidence) -> list[Finding]:
    """MFU or MBU above 100 %: the time is shorter than the roofs allow for the FLOPs or bytes counted."""
    t = ev.totals
    if t is None:
        return []
    found = []
    for name, value in (("mbu", t.mbu), ("mfu", t.mfu)):
        if value == value and value > 1.0:
            found.append(
                Finding(
                    code=f"{name}-over-100",
                    severity=Severity.WARN,
                    title=(
                        f"{name.upper()} {value:.0%} is above 100%: the step ({seconds(t.time_s)}) is shorter "
                        f"than the roof allows; likely {CAUSES[name]}"
                    ),
                    bottleneck="measurement",
                    evidence={name: round(value, 4), "time_s": t.time_s},
                    check_first="the roofs used (measured or datasheet), the model and dtypes, cache hit rates",
                )
            )
    return found
