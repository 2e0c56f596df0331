"""Roofline points of a trace: one per (CPU operator, kernel name), plus memcpy/memset by kind.

Time is the measured sum of the kernels' durations. FLOPs and bytes come from the launching
operator's shapes (``rooftop.torchops``, the formulas ``rooftop profile`` uses too) for the matmul
and attention families: an operator's cost is shared among its GEMM/attention kernels (all its
kernels when it has none) in proportion to their durations, so a split-K GEMM plus its reduction
still adds up to the operator's FLOPs once. Attention is counted causal where the trace recorded
``is_causal`` (``Concrete Inputs``) and as the full rectangle otherwise; the point's provenance
says which (``attention``). Copies carry the bytes Kineto records. Other kernels are timed points
with no FLOPs.
"""

from __future__ import annotations

import re

import numpy as np
from numpy.typing import NDArray

from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.dtypes import DTYPES
from rooftop.ingest.join import Joined, enclosing
from rooftop.ingest.kineto import KERNEL, Trace
from rooftop.ingest.timeline import name_mask
from rooftop.torchops.cost import CONCRETE_INPUTS, INPUT_DIMS, INPUT_TYPE, carries_flops, causal_flag, cost
from rooftop.torchops.kernel_classes import classify, op_of, short_kernel
from rooftop.units import MICRO

_FLOP_CLASSES = {"gemm", "gemv", "attention", "conv"}
UNJOINED = "<no cpu op>"
# Attention conventions, one bit each so a point that folds several op calls can name them all.
CONVENTIONS = {1: "causal pairs", 2: "full rectangle", 4: "full rectangle (is_causal not recorded)"}
F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


def op_costs(trace: Trace) -> tuple[F64, F64, I64, list[str], I64]:
    """Per CPU-op row: FLOPs, bytes, dtype index and attention convention bit (0, 0, -1, 0 when not computable).

    Costs are computed once per distinct (operator, shape) pair, never per row.
    """
    cpu = trace.cpu
    flops, bytes_ = np.zeros(cpu.ts_us.size), np.zeros(cpu.ts_us.size)
    dtype_idx = np.full(cpu.ts_us.size, -1, dtype=np.int64)
    convention = np.zeros(cpu.ts_us.size, dtype=np.int64)
    dtypes: list[str] = []
    rows = np.flatnonzero(cpu.shape_id >= 0)
    if rows.size == 0:
        return flops, bytes_, dtype_idx, dtypes, convention
    pairs, inverse = np.unique(np.stack([cpu.name_id[rows], cpu.shape_id[rows]], axis=1), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    uf, ub, ud = np.zeros(len(pairs)), np.zeros(len(pairs)), np.full(len(pairs), -1, dtype=np.int64)
    uc = np.zeros(len(pairs), dtype=np.int64)
    for i, (name_id, shape_id) in enumerate(pairs.tolist()):
        dims, types = cpu.shapes[shape_id]
        concrete = cpu.concrete[shape_id] if shape_id < len(cpu.concrete) else None
        op, args = trace.names[name_id], {INPUT_DIMS: dims, INPUT_TYPE: types, CONCRETE_INPUTS: concrete}
        flag = causal_flag(op, args)  # None: not recorded, counted as the full rectangle
        c = cost(op, args, causal=flag is True)
        if c is not None and c.flops > 0:
            uf[i], ub[i] = c.flops, c.bytes
            if c.dtype not in dtypes:
                dtypes.append(c.dtype)
            ud[i] = dtypes.index(c.dtype)
            uc[i] = 0 if not c.attention else 1 if c.causal else 2 if flag is False else 4
    flops[rows], bytes_[rows], dtype_idx[rows], convention[rows] = uf[inverse], ub[inverse], ud[inverse], uc[inverse]
    return flops, bytes_, dtype_idx, dtypes, convention


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
    """
    g = trace.gpu
    op_flops, op_bytes, op_dtype, dtypes, op_convention = op_costs(trace)
    flops, bytes_ = np.zeros(g.ts_us.size), np.zeros(g.ts_us.size)
    dtype_idx = np.full(g.ts_us.size, -1, dtype=np.int64)
    convention = np.zeros(g.ts_us.size, dtype=np.int64)
    op = costing_op(trace, joined, op_flops)
    cand = np.flatnonzero((op >= 0) & (g.kind == KERNEL))
    cand = cand[op_flops[op[cand]] > 0] if cand.size else cand
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
    if convention:  # attention: the causal convention its FLOPs were counted in
        provenance["attention"] = " + ".join(label for bit, label in CONVENTIONS.items() if convention & bit)
    return RooflinePoint(
        label=f"{op_name} → {short_kernel(name)}" if kind == KERNEL else name,
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
