"""Tensor-parallel collectives, timed against the link roof (not HBM)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rooftop.analytic.cost import OpCost
from rooftop.analytic.registry import OpKind, register


@register(OpKind.ALL_REDUCE)
def all_reduce(tokens: ArrayLike, width: int, act_bytes: float, tp: int) -> OpCost:
    """Ring all-reduce of a [tokens, width] activation across ``tp`` GPUs.

    Each GPU sends (and receives) 2·(tp-1)/tp of the message per direction (reduce-scatter then
    all-gather); it also adds (tp-1)/tp of the elements. tp=1 costs nothing. For tp=8 and a
    4096-wide bf16 token: 2 · 7/8 · 8192 B = 14,336 B over the link.
    """
    t = np.asarray(tokens, dtype=np.float64)
    message = t * width * act_bytes
    share = (tp - 1) / tp
    return OpCost(flops=share * t * width, link_bytes=2.0 * share * message, unit="vector")
