"""FLOPs and bytes of a CPU operator from its recorded shapes (Kineto ``Input Dims``/``Input type``).

Which operators are covered and where their operands sit is data (``mappings/ops_v1.toml``);
the formulas are here, one per family. One multiply-add = 2 FLOPs. Bytes are the operands read
plus the result written once, at the element size of the recorded dtype (an upper bound for
HBM traffic when operands are already in cache, a lower bound when a kernel re-reads tiles).
Attention counts the full score rectangle: Kineto does not record ``is_causal``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rooftop.dtypes import DTYPES
from rooftop.ingest.mapping import load


@dataclass(frozen=True)
class ShapeCost:
    """FLOPs and bytes of one operator call, and the dtype they were computed in."""

    flops: float
    bytes: float
    dtype: str


Dims = list[int]


def _numel(shape: Sequence[int]) -> float:
    return float(math.prod(shape)) if shape else 1.0


def _mm(a: Dims, b: Dims) -> tuple[float, Dims]:
    # [m, k] @ [k, n] -> [m, n]: 2 m k n
    m, k = a
    k2, n = b
    _same(k, k2)
    return 2.0 * m * k * n, [m, n]


def _bmm(a: Dims, b: Dims) -> tuple[float, Dims]:
    # [B, m, k] @ [B, k, n] -> [B, m, n]: 2 B m k n
    bt, m, k = a
    _, k2, n = b
    _same(k, k2)
    return 2.0 * bt * m * k * n, [bt, m, n]


def _matmul(a: Dims, b: Dims) -> tuple[float, Dims]:
    # torch.matmul broadcasting: [..., m, k] @ [..., k, n]; 1-D operands are vectors.
    if len(a) == 1 and len(b) == 1:
        return 2.0 * a[0], []
    if len(b) == 1:
        return 2.0 * _numel(a), a[:-1]
    if len(a) == 1:
        batch, k, n = b[:-2], b[-2], b[-1]
        return 2.0 * _numel(batch) * k * n, [*batch, n]
    batch = _broadcast(a[:-2], b[:-2])
    m, k, n = a[-2], a[-1], b[-1]
    return 2.0 * _numel(batch) * m * k * n, [*batch, m, n]


def _linear(x: Dims, w: Dims) -> tuple[float, Dims]:
    # x [..., k] @ w[n, k]^T -> [..., n]: 2 * numel(x) * n
    n, k = w
    if not x:
        raise ValueError("linear of a scalar")
    _same(x[-1], k)
    return 2.0 * _numel(x) * n, [*x[:-1], n]


def _attention(q: Dims, k: Dims, v: Dims, heads_axis: int) -> tuple[float, Dims]:
    # bhsd: q [b, h, s_q, d], k [b, h_kv, s_k, d], v [b, h_kv, s_k, d_v]
    # QK^T: 2 b h s_q s_k d; PV: 2 b h s_q s_k d_v (full rectangle, causal mask ignored)
    if heads_axis == 1:
        b, h, s_q, d = q
        s_k = k[2]
    else:  # bshd: q [b, s_q, h, d]
        b, s_q, h, d = q
        s_k = k[1]
    d_v = v[-1]
    return 2.0 * b * h * s_q * s_k * (d + d_v), [*q[:-1], d_v]


def _same(k: int, k2: int) -> None:
    if k != k2:
        raise ValueError(f"inner dimensions differ: {k} vs {k2}")


def _broadcast(a: Sequence[int], b: Sequence[int]) -> Dims:
    n = max(len(a), len(b))
    pa = [1] * (n - len(a)) + list(a)
    pb = [1] * (n - len(b)) + list(b)
    return [max(x, y) for x, y in zip(pa, pb)]


_FAMILIES: dict[str, Callable[..., tuple[float, Dims]]] = {
    "mm": _mm,
    "bmm": _bmm,
    "matmul": _matmul,
    "linear": _linear,
    "attention_bhsd": lambda q, k, v: _attention(q, k, v, 1),
    "attention_bshd": lambda q, k, v: _attention(q, k, v, 2),
}


def _is_shape(x: Any) -> bool:
    return isinstance(x, list) and all(type(d) is int and d >= 0 for d in x)


def cost(op: str, dims: Any, types: Any) -> ShapeCost | None:
    """FLOPs and bytes of ``op`` with Kineto ``Input Dims``/``Input type``; None when not computable."""
    mapping = load("ops_v1")
    entry = mapping["ops"].get(op)
    if entry is None or not isinstance(dims, list):
        return None
    positions: list[int] = entry["args"]
    if max(positions) >= len(dims) or not all(_is_shape(dims[i]) for i in positions):
        return None
    operands = [dims[i] for i in positions]
    try:
        flops, out_shape = _FAMILIES[entry["family"]](*operands)
    except (ValueError, IndexError, TypeError):  # wrong ranks for the family: not computable
        return None
    type_list = types if isinstance(types, list) else []
    type_name = type_list[positions[0]] if positions[0] < len(type_list) else ""
    dtype = mapping["types"].get(type_name, "")
    elem = DTYPES[dtype].bytes if dtype in DTYPES else 0.0
    moved = sum(_numel(s) for s in operands) + _numel(out_shape)
    if "out" in entry and entry["out"] < len(dims) and _is_shape(dims[entry["out"]]):
        moved += _numel(dims[entry["out"]])  # addmm/baddbmm read the accumulator input too
    return ShapeCost(flops=flops, bytes=moved * elem, dtype=dtype or "unknown")
