"""Roofline points of a trace: one per (CPU operator, kernel name), plus memcpy/memset by kind.

Time is the measured sum of the kernels' durations. FLOPs and bytes come from the launching
operator's shapes (``rooftop.torchops``, the formulas ``rooftop profile`` uses too) for the matmul
and attention families: an operator's cost is shared among its GEMM/attention kernels (all its
kernels when it has none) in proportion to their durations, so a split-K GEMM plus its reduction
still adds up to the operator's FLOPs once. Attention is counted causal where the trace recorded
``is_causal`` (``Concrete Inputs``) and as the full rectangle otherwise; the point's provenance
says which (``attention``). Every other operator with recorded shapes (elementwise, norms, copies,
custom ops) carries no FLOPs and the bytes ``torchops.cost.op_bytes`` estimates from its shapes
(tensor inputs read once, an output written; provenance ``bytes``), so memory-bound kernels sit
under the bandwidth roof too. Copies carry the bytes Kineto records.
Kernels of an operator without shapes (``record_shapes=False``) are timed points only.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np

from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.dtypes import DTYPES
from rooftop.ingest.join import Joined, enclosing
from rooftop.ingest.kineto import KERNEL, Trace
from rooftop.ingest.tables import F64, I64
from rooftop.ingest.timeline import name_mask
from rooftop.torchops.cost import (
    CONCRETE_INPUTS,
    INPUT_DIMS,
    INPUT_TYPE,
    carries_flops,
    causal_flag,
    cost,
    covered_ops,
    memory_cost,
)
from rooftop.torchops.dtype_names import KinetoType
from rooftop.torchops.kernel_classes import classify, is_communication, op_of, short_kernel
from rooftop.units import MICRO

_FLOP_CLASSES = {"gemm", "gemv", "attention", "conv"}
UNJOINED = "<no cpu op>"
# Attention conventions, one bit each so a point that folds several op calls can name them all.
CONVENTIONS = {1: "causal pairs", 2: "full rectangle", 4: "full rectangle (is_causal not recorded)"}


def _calls(trace: Trace, rows: I64) -> tuple[list[tuple[str, dict[str, Any]]], I64, I64]:
    """The distinct (operator, recorded args) of the CPU-op ``rows`` that kept shapes, those rows, and their indices."""
    cpu = trace.cpu
    rows = rows[cpu.shape_id[rows] >= 0]
    if rows.size == 0:
        return [], rows, rows
    pairs, inverse = np.unique(np.stack([cpu.name_id[rows], cpu.shape_id[rows]], axis=1), axis=0, return_inverse=True)
    calls = []
    for name_id, shape_id in pairs.tolist():
        dims, types = cpu.shapes[shape_id]
        concrete = cpu.concrete[shape_id] if shape_id < len(cpu.concrete) else None
        calls.append((trace.names[name_id], {INPUT_DIMS: dims, INPUT_TYPE: types, CONCRETE_INPUTS: concrete}))
    return calls, rows, inverse.reshape(-1)


def op_costs(trace: Trace) -> tuple[F64, F64, I64, list[str], I64]:
    """Per CPU-op row: FLOPs, bytes, dtype index and attention convention bit of the ops with a FLOP formula.

    (0, 0, -1, 0 for the others.) Costs are computed once per distinct (operator, shape) pair.
    """
    n = trace.cpu.ts_us.size
    flops, bytes_, dtype_idx, convention = np.zeros(n), np.zeros(n), np.full(n, -1, np.int64), np.zeros(n, np.int64)
    dtypes: list[str] = []
    covered = covered_ops()
    has_formula = np.array([name in covered for name in trace.names] or [False])  # per distinct name
    calls, rows, inverse = _calls(trace, np.flatnonzero(has_formula[trace.cpu.name_id]))
    k = len(calls)
    uf, ub, ud, uc = np.zeros(k), np.zeros(k), np.full(k, -1, np.int64), np.zeros(k, np.int64)
    for i, (op, args) in enumerate(calls):
        flag = causal_flag(op, args)  # None: not recorded, counted as the full rectangle
        c = cost(op, args, causal=flag is True)
        if c is not None and c.flops > 0:
            uf[i], ub[i], ud[i] = c.flops, c.bytes, _index(dtypes, c.dtype)
            uc[i] = 0 if not c.attention else 1 if c.causal else 2 if flag is False else 4
    flops[rows], bytes_[rows], dtype_idx[rows], convention[rows] = uf[inverse], ub[inverse], ud[inverse], uc[inverse]
    return flops, bytes_, dtype_idx, dtypes, convention


def memory_costs(trace: Trace, rows: I64, run_type: KinetoType | None, dtypes: list[str]) -> tuple[F64, I64]:
    """Bytes and dtype index (into ``dtypes``, extended) of the CPU-op ``rows``, ops without FLOPs (``memory_cost``).

    Only the rows asked for: the ops that launched kernels; the others' bytes would never be used.
    ``run_type`` is what a TensorList's tensors are taken to be (Kineto records no type).
    """
    moved, dtype_idx = np.zeros(rows.size), np.full(rows.size, -1, np.int64)
    calls, _, inverse = _calls(trace, rows)
    kept = trace.cpu.shape_id[rows] >= 0
    ub, ud = np.zeros(len(calls)), np.full(len(calls), -1, np.int64)
    for i, (op, args) in enumerate(calls):
        c = memory_cost(op, args, run_type)
        if c is not None:
            ub[i], ud[i] = c.bytes, _index(dtypes, c.dtype)
    moved[kept], dtype_idx[kept] = ub[inverse], ud[inverse]
    return moved, dtype_idx


def _index(names: list[str], name: str) -> int:
    if name not in names:
        names.append(name)
    return names.index(name)


def _run_type(dtypes: list[str], dtype_idx: I64) -> KinetoType | None:
    """The element type of most FLOP-carrying op calls (the model's compute dtype); None without any."""
    counts = Counter(dtypes[i] for i in dtype_idx[dtype_idx >= 0].tolist() if dtypes[i] in DTYPES)
    if not counts:
        return None
    dtype = max(counts, key=counts.__getitem__)  # the first of the most frequent, as most_common(1), without heapq
    return KinetoType(dtype, DTYPES[dtype].bytes)


def costing_op(trace: Trace, joined: Joined, op_flops: F64) -> I64:
    """Per GPU row, the CPU op whose FLOPs it shares (-1: none).

    The launching op, or when that op has no formula, the innermost enclosing op that has one and
    is not composite.

    On an H200, SDPA ran as aten::_scaled_dot_product_cudnn_attention (a formula) around
    aten::_cudnn_attention_forward (none), which launched the cuDNN kernels: their FLOPs were lost.
    """
    op = joined.op.copy()
    cpu = trace.cpu
    if cpu.name_id.size == 0:
        return op
    carries = np.fromiter((carries_flops(n) for n in trace.names), bool, len(trace.names))
    eligible = (op_flops > 0) & carries[cpu.name_id]
    costed = np.zeros(op.size, dtype=bool)
    costed[op >= 0] = op_flops[op[op >= 0]] > 0
    lost = (joined.launch >= 0) & (trace.gpu.kind == KERNEL) & ~costed
    if not np.any(lost) or not np.any(eligible):
        return op
    rows = joined.launch[lost]
    found = enclosing(cpu, trace.launches.thread[rows], trace.launches.ts_us[rows], eligible)
    op[lost] = np.where(found >= 0, found, op[lost])
    return op


def allocate(trace: Trace, joined: Joined) -> tuple[F64, F64, I64, list[str], I64]:
    """Per GPU row: FLOPs, bytes, dtype index and convention bit shared out from the launching op (vectorised).

    The op is ``costing_op``'s. Within one op, GEMM/attention-class kernels share its cost in
    proportion to their durations; when the op launched none of those, all its kernels share it.
    An op without FLOPs gives its kernels its bytes (``memory_costs``), unless they are
    communication: a collective's traffic is on the links (the collectives table), not in HBM.
    """
    g = trace.gpu
    op_flops, op_bytes, op_dtype, dtypes, op_convention = op_costs(trace)
    flops, bytes_ = np.zeros(g.ts_us.size), np.zeros(g.ts_us.size)
    dtype_idx = np.full(g.ts_us.size, -1, dtype=np.int64)
    convention = np.zeros(g.ts_us.size, dtype=np.int64)
    op = costing_op(trace, joined, op_flops)
    cand = np.flatnonzero((op >= 0) & (g.kind == KERNEL))
    if cand.size:
        memory = (op_flops[op[cand]] <= 0) & ~name_mask(trace, is_communication)[cand]
        launchers = np.flatnonzero(np.bincount(op[cand[memory]], minlength=trace.cpu.ts_us.size))  # not np.unique:
        # without return_* it asks np.ma.is_masked, and importing numpy.ma costs 12 ms
        run_type = _run_type(dtypes, op_dtype[op_flops > 0])
        op_bytes[launchers], op_dtype[launchers] = memory_costs(trace, launchers, run_type, dtypes)
        cand = cand[(op_flops[op[cand]] > 0) | (memory & (op_bytes[op[cand]] > 0))]
    if cand.size == 0:
        return flops, bytes_, dtype_idx, dtypes, convention
    ops = op[cand]
    heavy = name_mask(trace, lambda n: classify(n).name in _FLOP_CLASSES)[cand]
    n_ops = trace.cpu.ts_us.size
    op_has_heavy = np.bincount(ops, weights=heavy, minlength=n_ops) > 0
    chosen = (heavy | ~op_has_heavy[ops]).astype(np.float64)
    dur = g.dur_us[cand] * chosen
    dur_sum = np.bincount(ops, weights=dur, minlength=n_ops)[ops]
    count = np.bincount(ops, weights=chosen, minlength=n_ops)[ops]
    share = np.where(dur_sum > 0, dur / np.where(dur_sum > 0, dur_sum, 1.0), chosen / count)
    flops[cand], bytes_[cand] = op_flops[ops] * share, op_bytes[ops] * share
    dtype_idx[cand] = np.where(chosen > 0, op_dtype[ops], -1)
    convention[cand] = np.where(chosen > 0, op_convention[ops], 0)
    return flops, bytes_, dtype_idx, dtypes, convention


def points(trace: Trace, joined: Joined, rank: int | None = None) -> list[RooflinePoint]:
    """Aggregated measured points of one trace, most time first."""
    g = trace.gpu
    flops, bytes_, dtype_idx, dtypes, convention = allocate(trace, joined)
    op_name = np.full(g.ts_us.size, -1, dtype=np.int64)
    has = joined.op >= 0
    op_name[has] = trace.cpu.name_id[joined.op[has]]
    keys = np.stack([op_name, g.name_id, g.kind], axis=1)
    groups, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    n = len(groups)
    time_us = np.bincount(inverse, weights=g.dur_us, minlength=n)
    count = np.bincount(inverse, minlength=n)
    gflops = np.bincount(inverse, weights=flops, minlength=n)
    copy_bytes = np.where(g.kind == KERNEL, bytes_, np.nan_to_num(g.bytes))
    gbytes = np.bincount(inverse, weights=copy_bytes, minlength=n)
    gdtype = np.full(n, -1, dtype=np.int64)
    np.maximum.at(gdtype, inverse, dtype_idx)
    gconvention = np.zeros(n, dtype=np.int64)
    np.bitwise_or.at(gconvention, inverse, convention)
    out = [
        _point(
            trace,
            int(o),
            int(k),
            int(kind),
            rank,
            float(gflops[i]),
            float(gbytes[i]),
            float(time_us[i]),
            int(count[i]),
            dtypes[gdtype[i]] if gdtype[i] >= 0 else "",
            int(gconvention[i]),
        )
        for i, (o, k, kind) in enumerate(groups.tolist())
    ]
    return sorted(out, key=lambda p: -(p.time_s or 0.0))


def _point(trace: Trace, op_id: int, name_id: int, kind: int, rank: int | None, flops: float, moved: float,
           time_us: float, count: int, dtype: str, convention: int) -> RooflinePoint:  # fmt: skip
    name = trace.names[name_id]
    op_name = trace.names[op_id] if op_id >= 0 else UNJOINED
    kc = classify(name)
    host_copy = kind != KERNEL and bool(re.search(r"HtoD|DtoH|Host|Pageable|Pinned", name))
    provenance = {"kernel": name, "cpu_op": op_name, "class": kc.name, "file": trace.path, "rank": rank}
    if kind == KERNEL and flops == 0 and moved > 0:
        provenance["bytes"] = "estimated from the op's recorded shapes (torchops.cost.op_bytes)"
    label = name if kind != KERNEL else short_kernel(name)
    if kind == KERNEL and trace.cpu.ts_us.size:  # a file with no host side (an nsys GPU trace) names no op
        label = f"{op_name} → {label}"
    if convention:  # attention: the causal convention its FLOPs were counted in
        provenance["attention"] = " + ".join(label for bit, label in CONVENTIONS.items() if convention & bit)
    return RooflinePoint(
        label=label,
        op=op_of(name) if kind == KERNEL else "memcpy",
        phase=Phase.UNKNOWN,
        flops=flops,
        bytes=moved,
        time_s=time_us * MICRO,
        dtype=DTYPES[dtype].compute_roof if dtype in DTYPES else "",
        source=Source.TRACE,
        count=count,
        level="pcie" if host_copy else "hbm",
        provenance=provenance,
    )
