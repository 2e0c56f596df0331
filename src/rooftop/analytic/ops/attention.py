"""Attention: score (Q·Kᵀ), softmax, value (P·V) and the KV-cache append.

Shapes per layer and GPU: ``batch`` sequences, each with ``new`` query positions attending to
``past`` cached positions plus themselves; ``heads`` query heads and ``kv_heads`` KV heads
(GQA: kv_heads < heads; MQA: 1). Two kernel families:

* ``flash``: the score matrix never reaches HBM (tiles stay in SRAM); bytes are Q, K, V, O.
* ``materialized``: scores are written, softmax reads and writes them, P·V reads them again.

Causal counting is a parameter. ``causal=True`` counts the query-key pairs a causal kernel
computes, new·past + new·(new+1)/2 (flash kernels skip fully masked tiles); ``causal=False``
counts the full rectangle new·(past+new), as a kernel that masks after computing does. MFU's
``model_flops`` always uses the causal pairs.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rooftop.analytic.cost import Array, OpCost
from rooftop.analytic.registry import OpKind, register

SOFTMAX_FLOPS_PER_ELT = 5.0  # max, subtract, exp, sum, divide (exp counted as one)


def pairs(new: ArrayLike, past: ArrayLike, causal: bool) -> Array:
    """Query-key pairs per sequence per head. Decode (new=1) at context c: c + 1 either way."""
    q = np.asarray(new, dtype=np.float64)
    p = np.asarray(past, dtype=np.float64)
    return q * p + q * (q + 1) / 2 if causal else q * (p + q)


@register(OpKind.ATTN_SCORE)
def attn_score(
    batch: ArrayLike,
    new: ArrayLike,
    past: ArrayLike,
    heads: float,
    kv_heads: float,
    qk_dim: int,
    act_bytes: float,
    kv_bytes: float,
    impl: str,
    causal: bool,
) -> OpCost:
    """S = Q·Kᵀ. # q: [b, h, s_q, d] @ k: [b, kvh, d, s_k] -> s: [b, h, s_q, s_k]."""
    b = np.asarray(batch, dtype=np.float64)
    q = np.asarray(new, dtype=np.float64)
    kv_len = np.asarray(past, dtype=np.float64) + q
    flops = 2.0 * b * heads * pairs(q, past, causal) * qk_dim
    model = 2.0 * b * heads * pairs(q, past, True) * qk_dim
    scores = b * heads * q * kv_len * act_bytes if impl == "materialized" else 0.0 * b
    return OpCost(
        flops=flops,
        model_flops=model,
        act_in_bytes=b * q * heads * qk_dim * act_bytes,
        act_out_bytes=scores,
        kv_read_bytes=b * kv_heads * kv_len * qk_dim * kv_bytes,
    )


@register(OpKind.SOFTMAX)
def softmax(
    batch: ArrayLike, new: ArrayLike, past: ArrayLike, heads: float, act_bytes: float, impl: str, causal: bool
) -> OpCost:
    """P = softmax(S) over the scores; 5 FLOPs per element; HBM bytes only when materialized."""
    b = np.asarray(batch, dtype=np.float64)
    q = np.asarray(new, dtype=np.float64)
    elements = b * heads * pairs(q, past, causal)
    stored = b * heads * q * (np.asarray(past, dtype=np.float64) + q) * act_bytes if impl == "materialized" else 0.0 * b
    return OpCost(flops=SOFTMAX_FLOPS_PER_ELT * elements, act_in_bytes=stored, act_out_bytes=stored, unit="vector")


@register(OpKind.ATTN_VALUE)
def attn_value(
    batch: ArrayLike,
    new: ArrayLike,
    past: ArrayLike,
    heads: float,
    kv_heads: float,
    v_dim: int,
    act_bytes: float,
    kv_bytes: float,
    impl: str,
    causal: bool,
    reads_v: bool = True,
) -> OpCost:
    """O = P·V. # p: [b, h, s_q, s_k] @ v: [b, kvh, s_k, d_v] -> o: [b, h, s_q, d_v].

    ``reads_v=False`` when V is the same cached tensor the score already read (MLA's latent).
    """
    b = np.asarray(batch, dtype=np.float64)
    q = np.asarray(new, dtype=np.float64)
    kv_len = np.asarray(past, dtype=np.float64) + q
    probs = b * heads * q * kv_len * act_bytes if impl == "materialized" else 0.0 * b
    return OpCost(
        flops=2.0 * b * heads * pairs(q, past, causal) * v_dim,
        model_flops=2.0 * b * heads * pairs(q, past, True) * v_dim,
        act_in_bytes=probs,
        act_out_bytes=b * q * heads * v_dim * act_bytes,
        kv_read_bytes=b * kv_heads * kv_len * v_dim * kv_bytes if reads_v else 0.0 * b,
    )


@register(OpKind.KV_APPEND)
def kv_append(tokens: ArrayLike, elements_per_token: float, act_bytes: float, kv_bytes: float) -> OpCost:
    """Write this step's K and V (or MLA latent) into the cache: reads activations, writes KV."""
    t = np.asarray(tokens, dtype=np.float64)
    return OpCost(
        act_in_bytes=t * elements_per_token * act_bytes, kv_write_bytes=t * elements_per_token * kv_bytes, unit="vector"
    )
