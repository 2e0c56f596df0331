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

Windows (``window``: sliding-window layers) and chunks (``chunk``: Llama-4's chunked attention)
bound the keys each query sees and the cache the layer keeps. Sliding window W: query at
position t sees min(t+1, W) keys; the kernel reads the window plus this step's keys,
min(past + new, W − 1 + new). Chunk C: query at t sees the keys of its own chunk, (t mod C) + 1;
the cache holds the current chunk, (past mod C) + new keys read. Without ``causal`` the
rectangle is new × the keys read. 0 means no bound (full attention).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rooftop.analytic.cost import Array, OpCost
from rooftop.analytic.registry import OpKind, register

SOFTMAX_FLOPS_PER_ELT = 5.0  # max, subtract, exp, sum, divide (exp counted as one)


def pairs(new: ArrayLike, past: ArrayLike, causal: bool, window: float = 0, chunk: float = 0) -> Array:
    """Query-key pairs per sequence per head. Decode (new=1) at context c: c + 1 either way (no bound).

    Sliding window 4096, decode at context 32,767: min(32,768, 4096) = 4096 pairs. Chunk 8192, decode
    at context 10,000: 10,000 mod 8192 + 1 = 1809 pairs.
    """
    q = np.asarray(new, dtype=np.float64)
    p = np.asarray(past, dtype=np.float64)
    if not causal:
        return q * keys_read(q, p, window, chunk)
    if chunk:
        return _chunk_prefix(p + q, chunk) - _chunk_prefix(p, chunk)
    if window:  # rows j = 1..q see min(p + j, W): the first n_full rows are unclipped
        unclipped = np.clip(window - p, 0, q)
        return unclipped * p + unclipped * (unclipped + 1) / 2 + (q - unclipped) * window
    return q * p + q * (q + 1) / 2


def _chunk_prefix(n: Array, chunk: float) -> Array:
    """Σ over positions t < n of (t mod C) + 1: whole chunks give C(C+1)/2, the rest r(r+1)/2."""
    whole, rest = np.floor(n / chunk), np.mod(n, chunk)
    result: Array = whole * chunk * (chunk + 1) / 2 + rest * (rest + 1) / 2
    return result


def keys_read(new: ArrayLike, past: ArrayLike, window: float = 0, chunk: float = 0) -> Array:
    """Cached plus new keys (per KV head) the kernel reads in one step: all, the window, or the chunk."""
    q = np.asarray(new, dtype=np.float64)
    p = np.asarray(past, dtype=np.float64)
    if chunk:
        return np.minimum(np.mod(p, chunk) + q, p + q)
    if window:
        return np.minimum(p + q, window - 1 + q)
    return p + q


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
    window: float = 0,
    chunk: float = 0,
) -> OpCost:
    """S = Q·Kᵀ. # q: [b, h, s_q, d] @ k: [b, kvh, d, s_k] -> s: [b, h, s_q, s_k]."""
    b = np.asarray(batch, dtype=np.float64)
    q = np.asarray(new, dtype=np.float64)
    kv_len = keys_read(q, past, window, chunk)
    flops = 2.0 * b * heads * pairs(q, past, causal, window, chunk) * qk_dim
    model = 2.0 * b * heads * pairs(q, past, True, window, chunk) * qk_dim
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
    batch: ArrayLike,
    new: ArrayLike,
    past: ArrayLike,
    heads: float,
    act_bytes: float,
    impl: str,
    causal: bool,
    window: float = 0,
    chunk: float = 0,
) -> OpCost:
    """P = softmax(S) over the scores; 5 FLOPs per element; HBM bytes only when materialized."""
    b = np.asarray(batch, dtype=np.float64)
    q = np.asarray(new, dtype=np.float64)
    elements = b * heads * pairs(q, past, causal, window, chunk)
    stored = b * heads * q * keys_read(q, past, window, chunk) * act_bytes if impl == "materialized" else 0.0 * b
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
    window: float = 0,
    chunk: float = 0,
) -> OpCost:
    """O = P·V. # p: [b, h, s_q, s_k] @ v: [b, kvh, s_k, d_v] -> o: [b, h, s_q, d_v].

    ``reads_v=False`` when V is the same cached tensor the score already read (MLA's latent).
    """
    b = np.asarray(batch, dtype=np.float64)
    q = np.asarray(new, dtype=np.float64)
    kv_len = keys_read(q, past, window, chunk)
    probs = b * heads * q * kv_len * act_bytes if impl == "materialized" else 0.0 * b
    return OpCost(
        flops=2.0 * b * heads * pairs(q, past, causal, window, chunk) * v_dim,
        model_flops=2.0 * b * heads * pairs(q, past, True, window, chunk) * v_dim,
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
