"""Pipeline-parallel point-to-point send of the hidden state between two stages."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rooftop.analytic.cost import OpCost
from rooftop.analytic.registry import OpKind, register


@register(OpKind.P2P_SEND)
def p2p_send(tokens: ArrayLike, width: int, act_bytes: float) -> OpCost:
    """Send X[tokens, width] to the next stage: tokens·width·act_bytes over the link, once.

    A 4096-wide bf16 hidden state: 8,192 B per token per stage boundary.
    """
    t = np.asarray(tokens, dtype=np.float64)
    message = t * width * act_bytes
    return OpCost(act_in_bytes=message, act_out_bytes=message, link_bytes=message, unit="vector")
