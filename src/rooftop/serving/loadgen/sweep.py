"""A rate sweep's summaries → the knee and the goodput-maximal rate.

The knee is the first rate where median TTFT exceeds ``knee_factor`` × the lowest rate's median
TTFT (queueing sets in), or where achieved throughput falls below ``saturation`` × offered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def analyse(
    points: Sequence[tuple[float, dict[str, Any]]], knee_factor: float = 2.0, saturation: float = 0.9
) -> dict[str, Any]:
    """{'best_goodput_rate', 'best_goodput_rps', 'knee_rate'} from (offered rate, summary) pairs."""
    if not points:
        return {"best_goodput_rate": None, "best_goodput_rps": None, "knee_rate": None}
    ordered = sorted(points, key=lambda p: p[0])
    best_rate, best = max(ordered, key=lambda p: p[1]["goodput_rps"] or 0.0)
    base = ordered[0][1]["ttft_s"]["p50"]
    knee = None
    for rate, s in ordered:
        ttft = s["ttft_s"]["p50"]
        slow = base is not None and ttft is not None and ttft > knee_factor * base
        saturated = rate != float("inf") and s["request_throughput_rps"] < saturation * rate
        if slow or saturated:
            knee = rate
            break
    return {"best_goodput_rate": best_rate, "best_goodput_rps": best["goodput_rps"], "knee_rate": knee}
