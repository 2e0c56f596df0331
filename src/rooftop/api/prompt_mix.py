"""Prefill FLOPs of a mix of prompt lengths: summed per request, or bounded from a histogram.

A prompt's prefill cost is not linear in its length: attention grows with its square, so the
cost of a window's prompts is not (number of prompts) × cost(mean length) — by Jensen's
inequality that product is a lower bound. ``bench`` knows every request's prompt length and sums
the cost per request (``per_request``); ``watch`` only has the engine's prompt-length histogram
and reports the interval the true sum lies in (``bounds``).

``cost(p)`` is the per-token cost of one prompt of ``p`` tokens (``LiveModel.prefill``), so a
prompt costs ``p × cost(p)``. Distinct lengths are evaluated once each.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

FIELDS = ("model_flops", "matmul_flops_full", "useful_bytes", "bytes")


def per_request(cost: Callable[[float], Any], lengths: Iterable[int]) -> dict[str, float]:
    """Σ over prompts of p × cost(p) for each field of the per-token cost (tokens: Σ p)."""
    out = dict.fromkeys(FIELDS, 0.0) | {"tokens": 0.0, "requests": 0.0}
    for p, n in Counter(int(x) for x in lengths if x and x > 0).items():
        c = cost(p)
        for f in FIELDS:
            out[f] += n * p * float(getattr(c, f))
        out["tokens"] += n * p
        out["requests"] += n
    return out


def bounds(cost: Callable[[float], Any], hist: Any) -> tuple[float, float] | None:
    """(low, high) of the window's prefill model FLOPs from a prompt-length histogram.

    Low: the larger of n × f(mean) (Jensen: f is convex) and Σ_bucket count × f(lower edge).
    High: Σ_bucket count × f(upper edge); infinite when prompts fall in the +Inf bucket.
    ``f(p) = p × cost(p).model_flops``. None when the histogram is empty.
    """
    if hist is None or hist.count <= 0:
        return None

    def f(p: float) -> float:
        return 0.0 if p <= 0 else p * float(cost(p).model_flops)

    low_edges = 0.0
    high = 0.0
    prev_edge, prev_cum = 0.0, 0.0
    for edge, cum in hist.buckets:
        n = cum - prev_cum
        if n > 0:
            low_edges += n * f(math.floor(prev_edge) + 1)
            high += n * f(edge) if math.isfinite(edge) else math.inf
        prev_edge, prev_cum = edge, cum
    jensen = hist.count * f(hist.sum / hist.count)
    return max(jensen, low_edges), high
