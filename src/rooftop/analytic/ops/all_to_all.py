"""Expert-parallel all-to-all: dispatch tokens to the ranks holding their experts, combine them back."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rooftop.analytic.cost import OpCost
from rooftop.analytic.registry import OpKind, register


@register(OpKind.ALL_TO_ALL)
def all_to_all(
    tokens: ArrayLike,
    width: int,
    top_k: float,
    ep: int,
    elt_bytes: float,
    scale_bytes: float = 0.0,
    reduce: bool = False,
) -> OpCost:
    """One all-to-all of a MoE layer across ``ep`` ranks, per GPU.

    # dispatch: X[T, width] -> T·top_k copies [width] (+ scales), one per routed expert
    # combine:  T·top_k expert outputs [width] -> weighted sum into Y[T, width]
    Each (token, routed expert) pair is one copy (as DeepEP's low-latency kernels send them);
    with uniform routing a share (ep − 1)/ep of the copies lands on another rank and crosses the
    link. A copy is ``width × elt_bytes + scale_bytes`` (FP8 dispatch with one fp32 scale per 128
    channels: 7168 + 7168/128·4 = 7392 B for DeepSeek-V3). The combine's weighted sum costs
    top_k·width FLOPs per token. HBM: each copy is read on one side and written on the other.
    """
    t = np.asarray(tokens, dtype=np.float64)
    copies = t * top_k
    per_copy = width * elt_bytes + scale_bytes
    remote = copies * (ep - 1) / ep * per_copy
    flops = copies * width if reduce else np.zeros_like(t)
    return OpCost(
        flops=flops, act_in_bytes=copies * per_copy, act_out_bytes=copies * per_copy, link_bytes=remote, unit="vector"
    )
