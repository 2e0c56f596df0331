"""FLOPs and bytes of one aten op recorded by the torch profiler, from its Kineto ``args``.

``args`` is the event's args dict as Kineto writes it: ``Input Dims`` (one shape per input, a list
of shapes for a TensorList, [] for a scalar), ``Input type`` and, from PyTorch 2.1, ``Concrete
Inputs`` (the scalar arguments as text). One formula per op: the live profile (``measure``) and
trace import (``ingest``) both call ``cost``. Bytes are every tensor input read once plus the output
written once at the first operand's element size: an upper bound for HBM traffic when operands are
already in cache, a lower bound when a kernel re-reads tiles.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import msgspec

from rooftop.torchops.dtype_names import TENSOR_LIST, KinetoType, kineto_type, tensor_list_bytes
from rooftop.torchops.formulas import ATTENTION_FAMILIES, MATMUL_FAMILIES, Dims, attention, numel
from rooftop.torchops.mapping import load

INPUT_DIMS = "Input Dims"
INPUT_TYPE = "Input type"
CONCRETE_INPUTS = "Concrete Inputs"


class OpCost(msgspec.Struct, frozen=True):
    """FLOPs and bytes of one op call, its dtype, and (attention) the causal convention it was counted in."""

    flops: float
    bytes: float
    dtype: str  # rooftop dtype of the first operand; "unknown" when the type was not recorded
    attention: bool = False
    causal: bool = False  # attention: s(s+1)/2 pairs (True) or the full score rectangle (False)


@cache
def _ops() -> dict[str, dict[str, Any]]:
    return dict(load("ops_v2")["ops"])


@cache
def _views() -> frozenset[str]:
    return frozenset(load("ops_v2")["views"]["ops"])


@cache
def _once() -> frozenset[str]:
    return frozenset(load("ops_v2")["once"]["ops"])


@cache
def _partial() -> frozenset[str]:
    return frozenset(load("ops_v2")["partial"]["ops"])


def covered_ops() -> frozenset[str]:
    """Every op with a FLOP formula."""
    return frozenset(_ops())


def costable(op: str) -> bool:
    """Whether ``op``'s recorded shapes can give it a cost (the ops whose shapes a trace reader keeps).

    An op with a FLOP formula, or an aten op whose bytes ``op_bytes`` estimates: not a view, not a
    partial-indexing op. Custom ops and annotations are not: their inputs may be tables they index.
    """
    return op in _ops() or (op.startswith("aten::") and op not in _views() and op not in _partial())


def carries_flops(op: str) -> bool:
    """Whether ``op`` has a formula and is not composite (its FLOPs are not those of an op nested in it)."""
    entry = _ops().get(op)
    return entry is not None and not entry.get("composite", False)


def causal_flag(op: str, args: Mapping[str, Any]) -> bool | None:
    """The causal flag ``op`` recorded in ``Concrete Inputs``; None when not recorded (older Kineto)."""
    entry = _ops().get(op)
    concrete = args.get(CONCRETE_INPUTS)
    if entry is None or "causal_arg" not in entry or not isinstance(concrete, list):
        return None
    pos = entry["causal_arg"]
    value = concrete[pos] if pos < len(concrete) else None
    if not isinstance(value, str) or value == "":
        return None
    return value in entry.get("causal_true", ["True"])


def tensors(args: Mapping[str, Any], list_bytes: float | None = None) -> list[tuple[Dims, float]]:
    """(dims, bytes per element) of each tensor input with a known type; TensorLists are flattened.

    Kineto records no element type for a TensorList: its tensors count at ``list_bytes`` when the
    caller knows the run's dtype (``rooftop profile`` does), else at the table's default (4 B).
    """
    out: list[tuple[Dims, float]] = []
    dims_list, types = args.get(INPUT_DIMS), args.get(INPUT_TYPE)
    if not isinstance(dims_list, list) or not isinstance(types, list):
        return out
    for dims, typ in zip(dims_list, types):
        if typ == TENSOR_LIST and isinstance(dims, list):
            size = list_bytes or tensor_list_bytes()
            out += [(d, size) for d in dims if isinstance(d, list) and d]
        elif isinstance(dims, list) and dims and (kt := kineto_type(typ)) is not None:
            out.append((dims, kt.bytes))
    return out


def _read_bytes(args: Mapping[str, Any]) -> float:
    return sum(_count(d) * size for d, size in tensors(args))


def _count(dims: Any) -> float:
    return numel(dims) if all(type(d) is int for d in dims) else 0.0


def _concrete_int(args: Mapping[str, Any], pos: int) -> int:
    """The integer scalar at ``pos`` in ``Concrete Inputs`` (0 when not recorded or not an integer)."""
    concrete = args.get(CONCRETE_INPUTS)
    value = concrete[pos] if isinstance(concrete, list) and pos < len(concrete) else None
    try:
        return int(value) if isinstance(value, str) else 0
    except ValueError:
        return 0


def _is_shape(x: Any) -> bool:
    return isinstance(x, list) and all(type(d) is int and d >= 0 for d in x)


def cost(op: str, args: Mapping[str, Any], *, causal: bool = False) -> OpCost | None:
    """FLOPs and bytes of ``op`` from its recorded shapes; None when ``op`` has no formula or the shapes do not fit.

    ``causal`` is the attention convention (ignored by matmuls): True counts the s(s+1)/2 pairs a
    causal kernel computes when s_q = s_k, False the full rectangle. Callers pass the recorded flag
    (``causal_flag``) and fall back to False when the trace does not record it.
    """
    entry = _ops().get(op)
    dims = args.get(INPUT_DIMS)
    if entry is None or not isinstance(dims, list):
        return None
    positions: list[int] = entry["args"]
    if max(positions) >= len(dims) or not all(_is_shape(dims[i]) for i in positions):
        return None
    operands = [dims[i] for i in positions]
    family: str = entry["family"]
    try:
        if family in ATTENTION_FAMILIES:
            q, k, v = operands
            flops, out_shape = attention(q, k, v, ATTENTION_FAMILIES[family], causal)
        else:
            flops, out_shape = MATMUL_FAMILIES[family](*operands)
    except (ValueError, IndexError, TypeError):  # wrong ranks for the family: not computable
        return None
    types = args.get(INPUT_TYPE)
    first = types[positions[0]] if isinstance(types, list) and positions[0] < len(types) else None
    kt = kineto_type(first)
    written = numel(out_shape) * (kt.bytes if kt else 0.0)
    is_attention = family in ATTENTION_FAMILIES
    dtype = kt.dtype if kt else "unknown"
    return OpCost(flops, _read_bytes(args) + written, dtype, is_attention, causal and is_attention)


def memory_cost(op: str, args: Mapping[str, Any], list_type: KinetoType | None = None) -> OpCost | None:
    """An op without FLOPs (elementwise, norms, copies, custom ops): ``op_bytes``' estimate at its first tensor's dtype.

    ``list_type``: what a TensorList's tensors are taken to be (the run's dtype; Kineto records
    none). None when the op moves nothing (a view, no recorded tensor).
    """
    moved = op_bytes(op, args, list_type.bytes if list_type else None)
    if moved <= 0:
        return None
    types = args.get(INPUT_TYPE)
    known = [kt for kt in map(kineto_type, types if isinstance(types, list) else []) if kt is not None]
    first = known[0] if known else list_type
    return OpCost(0.0, moved, first.dtype if first else "unknown")


def op_bytes(op: str, args: Mapping[str, Any], list_bytes: float | None = None) -> float:
    """Bytes of any op: its formula's when it has one, else inputs read once plus an estimated output.

    Views move nothing; ops outside ``aten`` (custom kernels, autograd nodes, annotations: their
    inputs may be tables they index) and aten's partial-indexing ops (``[partial]``) get no
    estimate (0). Embedding and index_select read the gathered rows (indices plus rows, written
    once); gather reads and writes one element per index (the index itself not counted: it is
    often an expanded view whose recorded shape is not what is read); cat writes what it reads;
    copies, fills and reductions (``[once]`` in ops_v2.toml) move their recorded tensors once;
    any other op writes one tensor the size of its largest input.
    """
    c = cost(op, args)
    if c is not None:
        return c.bytes
    if not costable(op):
        return 0.0  # a view moves nothing; the others an unknown part of their inputs
    found = tensors(args, list_bytes)
    if not found:
        return 0.0
    reads = sum(_count(d) * s for d, s in found)
    dims0, size0 = found[0]
    if op == "aten::embedding":  # weight, indices
        rows = _count(found[1][0]) if len(found) > 1 else 0.0
        return rows * found[1][1] + 2 * rows * dims0[-1] * size0
    if op == "aten::cat":
        return 2 * reads
    if op == "aten::index_select" and len(found) > 1 and dims0:  # (self, dim, index): whole slices along dim
        dim = _concrete_int(args, 1)
        if -len(dims0) <= dim < len(dims0) and type(dims0[dim]) is int and dims0[dim] > 0:
            picked = _count(found[1][0]) * _count(dims0) / dims0[dim]
            return _count(found[1][0]) * found[1][1] + 2 * picked * size0
    if op in ("aten::gather", "aten::take_along_dim") and len(found) > 1:  # (self, dim, index): one element per index
        return 2 * _count(found[1][0]) * size0  # the index not counted: often a stride-0 expand of a column
    if op in _once():
        return reads
    return reads + max(_count(d) for d, _ in found) * size0
