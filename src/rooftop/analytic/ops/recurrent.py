"""Recurrent token mixers: gated DeltaNet and Mamba scans, whose per-sequence state replaces a KV cache.

The state (``state_elements`` per sequence and layer, constant in context) is read and written
once per step: a decode step streams it through, a prefill keeps it on chip across the prompt
(chunked kernels) and writes it once. Its bytes are counted as cache bytes (``kv_read_bytes``,
``kv_write_bytes``), since they play the KV cache's part. FLOPs are per token, given by the
mixer (``models/mixers.py``): the recurrent form, not the chunked form a prefill kernel may use.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rooftop.analytic.cost import OpCost
from rooftop.analytic.registry import OpKind, register


@register(OpKind.RECURRENT_STATE)
def recurrent_state(
    tokens: ArrayLike,
    batch: ArrayLike,
    flops_per_token: float,
    state_elements: float,
    state_bytes: float,
    in_width: float,
    out_width: float,
    act_bytes: float,
    unit: str = "tensor",
) -> OpCost:
    """Update and read a per-sequence state for every token of the step.

    Mamba-1 scan read (the C·h product, 2 · d_inner · d_state per token), d_inner 4096, d_state 16,
    one decode token: 131,072 FLOPs; its state read and written once per step.
    """
    t = np.asarray(tokens, dtype=np.float64)
    b = np.asarray(batch, dtype=np.float64)
    state = b * state_elements * state_bytes
    flops = t * flops_per_token
    return OpCost(
        flops=flops,
        model_flops=flops if unit == "tensor" else 0.0 * t,
        act_in_bytes=t * in_width * act_bytes,
        act_out_bytes=t * out_width * act_bytes,
        kv_read_bytes=state,
        kv_write_bytes=state,
        unit=unit,
    )
