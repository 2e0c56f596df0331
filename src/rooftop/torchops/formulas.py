"""FLOPs and output shape of each operator family, from operand shapes; one multiply-add = 2 FLOPs.

Which aten op belongs to which family, and where its operands sit in ``Input Dims``, is data
(``mappings/ops_v2.toml``). Each function returns (FLOPs, output shape) and raises ValueError,
IndexError or TypeError when the shapes do not fit the family. Attention takes the causal
convention as a parameter: the caller says whether the kernel skipped the masked pairs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

Dims = list[int]


def numel(shape: Sequence[int]) -> float:
    """Number of elements of a shape (1 for a scalar's [])."""
    return float(math.prod(shape)) if shape else 1.0


def mm(a: Dims, b: Dims) -> tuple[float, Dims]:
    """[m, k] @ [k, n] -> [m, n]: 2 m k n."""
    m, k = a
    k2, n = b
    _same(k, k2)
    return 2.0 * m * k * n, [m, n]


def bmm(a: Dims, b: Dims) -> tuple[float, Dims]:
    """[B, m, k] @ [B, k, n] -> [B, m, n]: 2 B m k n."""
    bt, m, k = a
    _, k2, n = b
    _same(k, k2)
    return 2.0 * bt * m * k * n, [bt, m, n]


def matmul(a: Dims, b: Dims) -> tuple[float, Dims]:
    """torch.matmul broadcasting: [..., m, k] @ [..., k, n]; 1-D operands are vectors."""
    if len(a) == 1 and len(b) == 1:
        return 2.0 * a[0], []
    if len(b) == 1:
        return 2.0 * numel(a), a[:-1]
    if len(a) == 1:
        batch, k, n = b[:-2], b[-2], b[-1]
        return 2.0 * numel(batch) * k * n, [*batch, n]
    batch = _broadcast(a[:-2], b[:-2])
    m, k, n = a[-2], a[-1], b[-1]
    return 2.0 * numel(batch) * m * k * n, [*batch, m, n]


def linear(x: Dims, w: Dims) -> tuple[float, Dims]:
    """x [..., k] @ w[n, k]^T -> [..., n]: 2 numel(x) n."""
    n, k = w
    if not x:
        raise ValueError("linear of a scalar")
    _same(x[-1], k)
    return 2.0 * numel(x) * n, [*x[:-1], n]


def attention(q: Dims, k: Dims, v: Dims, heads_axis: int, causal: bool) -> tuple[float, Dims]:
    """QK^T and PV: 2 b h pairs (d + d_v), h the query heads (GQA shares K/V heads).

    bhsd (heads_axis 1): q [b, h, s_q, d], k [b, h_kv, s_k, d], v [b, h_kv, s_k, d_v];
    bshd (heads_axis 2): q [b, s_q, h, d], k [b, s_k, h_kv, d]. ``causal`` with s_q = s_k counts
    the s(s+1)/2 pairs a causal kernel computes; otherwise the full s_q x s_k rectangle.
    """
    if heads_axis == 1:
        b, h, s_q, d = q
        s_k = k[2]
    else:
        b, s_q, h, d = q
        s_k = k[1]
    d_v = v[-1]
    pairs = s_q * (s_q + 1) / 2 if causal and s_q == s_k else s_q * s_k
    return 2.0 * b * h * pairs * (d + d_v), [*q[:-1], d_v]


def _same(k: int, k2: int) -> None:
    if k != k2:
        raise ValueError(f"inner dimensions differ: {k} vs {k2}")


def _broadcast(a: Sequence[int], b: Sequence[int]) -> Dims:
    n = max(len(a), len(b))
    pa = [1] * (n - len(a)) + list(a)
    pb = [1] * (n - len(b)) + list(b)
    return [max(x, y) for x, y in zip(pa, pb)]


MATMUL_FAMILIES: dict[str, Callable[[Dims, Dims], tuple[float, Dims]]] = {
    "mm": mm,
    "bmm": bmm,
    "matmul": matmul,
    "linear": linear,
}
ATTENTION_FAMILIES: dict[str, int] = {"attention_bhsd": 1, "attention_bshd": 2}  # family -> heads axis
