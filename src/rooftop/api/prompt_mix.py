"""Prefill FLOPs of a mix of prompt lengths: summed per request, or bounded from a histogram.

A prompt's prefill cost is not linear in its length: attention grows with its square, so the
cost of a window's prompts is not (number of prompts) × cost(mean length) — by Jensen's
inequality that product is a lower bound. ``bench`` knows every request's prompt length and sums
the cost per request (``PromptMix.prefill``); ``watch`` only has the engine's prompt-length
histogram and reports the interval the true sum lies in (``bounds``).

``cost(p)`` is the per-token cost of one prompt of ``p`` tokens (``LiveModel.prefill``), so a
prompt costs ``p × cost(p)``. Distinct lengths are evaluated once each. A decode token's cost is
affine in its context, so the decode FLOPs of a mix are exact at the token-weighted mean context
(``PromptMix.decode_context``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

FIELDS = ("model_flops", "matmul_flops_full", "useful_bytes", "bytes")


class MixCost(msgspec.Struct, frozen=True):
    """Per computed prompt token, averaged over the requests' own lengths (fields as PerToken)."""

    model_flops: float
    matmul_flops_full: float
    useful_bytes: float
    bytes: float


class PromptMix(msgspec.Struct, frozen=True):
    """The prompt, cached-prefix and output lengths of the requests a bench level sent (usage)."""

    prompts: tuple[int, ...]
    cached: tuple[int, ...]
    outputs: tuple[int, ...]

    @classmethod
    def from_records(cls, records: Iterable[Any]) -> PromptMix | None:
        """From the load generator's records (successful ones with a prompt length); None when none."""
        rows = [r for r in records if r.ok and r.prompt_tokens]
        if not rows:
            return None
        return cls(
            tuple(int(r.prompt_tokens) for r in rows),
            tuple(int(r.cached_tokens or 0) for r in rows),
            tuple(int(r.n_tokens) for r in rows),
        )

    def prefill(self, cost: Callable[[float], Any]) -> MixCost:
        """Σ_i computed_i × cost(p_i) / Σ_i computed_i, per field (computed = prompt − cached)."""
        sums = dict.fromkeys(FIELDS, 0.0)
        weight = 0.0
        for (p, computed), n in Counter((p, max(0, p - c)) for p, c in zip(self.prompts, self.cached)).items():
            c_p = cost(p)
            for f in FIELDS:
                sums[f] += n * computed * float(getattr(c_p, f))
            weight += n * computed
        return MixCost(*(sums[f] / weight if weight else 0.0 for f in FIELDS))

    def decode_context(self) -> float | None:
        """Mean context over every decode token: request i's j-th decode token (j = 0..o_i−2) sees p_i + j."""
        tokens = sum(max(0, o - 1) for o in self.outputs)
        if not tokens:
            return None
        total = sum(max(0, o - 1) * (p + max(0, o - 2) / 2.0) for p, o in zip(self.prompts, self.outputs))
        return total / tokens


def bounds(cost: Callable[[float], Any], hist: Any) -> tuple[float, float] | None:
    """(low, high) of the prefill model FLOPs of the prompts a length histogram counts.

    Low: the larger of n × f(mean) (Jensen: f is convex) and Σ_bucket count × f(lower edge).
    High: Σ_bucket count × f(upper edge); infinite when prompts fall in the +Inf bucket.
    ``f(p) = p × cost(p).model_flops``. None when the histogram is empty.
    """
    if hist is None or hist.count <= 0:
        return None

    def f(p: float) -> float:
        return 0.0 if p <= 0 else p * float(cost(p).model_flops)

    low_edges, high = 0.0, 0.0
    prev_edge, prev_cum = 0.0, 0.0
    for edge, cum in hist.buckets:
        n = cum - prev_cum
        if n > 0:
            low_edges += n * f(math.floor(prev_edge) + 1)
            high += n * f(edge) if math.isfinite(edge) else math.inf
        prev_edge, prev_cum = edge, cum
    return max(hist.count * f(hist.sum / hist.count), low_edges), high
