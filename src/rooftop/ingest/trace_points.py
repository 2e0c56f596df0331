"""Roofline points of a trace: one per (CPU operator, kernel name), plus memcpy/memset by kind.

Time is the measured sum of the kernels' durations. FLOPs and bytes come from the launching
operator's shapes (``shapes.py``) for the matmul and attention families: an operator's cost is
shared among its GEMM/attention kernels (all its kernels when it has none) in proportion to their
durations, so a split-K GEMM plus its reduction still adds up to the operator's FLOPs once.
Copies carry the bytes Kineto records. Other kernels are timed points with no FLOPs.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import numpy as np

from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.dtypes import DTYPES
from rooftop.ingest.join import Joined
from rooftop.ingest.kernel_classes import classify, short_kernel
from rooftop.ingest.kineto import KERNEL, Trace
from rooftop.ingest.shapes import ShapeCost, cost
from rooftop.units import MICRO

_FLOP_CLASSES = {"gemm", "gemv", "attention", "conv"}
UNJOINED = "<no cpu op>"


def _op_costs(trace: Trace) -> dict[int, ShapeCost]:
    out = {}
    for row, (dims, types) in trace.cpu.shapes.items():
        c = cost(trace.names[int(trace.cpu.name_id[row])], dims, types)
        if c is not None and c.flops > 0:
            out[row] = c
    return out


def _allocate(trace: Trace, joined: Joined, costs: dict[int, ShapeCost]) -> tuple[np.ndarray[Any, Any], ...]:
    """Per GPU row: FLOPs, bytes and dtype index allocated from the launching op's shapes."""
    g = trace.gpu
    flops = np.zeros(g.ts_us.size)
    bytes_ = np.zeros(g.ts_us.size)
    dtype = np.full(g.ts_us.size, "", dtype=object)
    by_op: dict[int, list[int]] = defaultdict(list)
    for row in np.flatnonzero((joined.op >= 0) & (g.kind == KERNEL)).tolist():
        if int(joined.op[row]) in costs:
            by_op[int(joined.op[row])].append(row)
    for op, rows in by_op.items():
        heavy = [r for r in rows if classify(trace.names[int(g.name_id[r])]).name in _FLOP_CLASSES] or rows
        dur = g.dur_us[heavy]
        share = dur / dur.sum() if dur.sum() > 0 else np.full(len(heavy), 1.0 / len(heavy))
        c = costs[op]
        flops[heavy] += c.flops * share
        bytes_[heavy] += c.bytes * share
        dtype[heavy] = c.dtype
    return flops, bytes_, dtype


def points(trace: Trace, joined: Joined, rank: int | None = None) -> list[RooflinePoint]:
    """Aggregated measured points of one trace, most time first."""
    g = trace.gpu
    flops, bytes_, dtypes = _allocate(trace, joined, _op_costs(trace))
    groups: dict[tuple[str, int, int], list[int]] = defaultdict(list)
    for row in range(g.ts_us.size):
        op = int(joined.op[row])
        op_name = trace.names[int(trace.cpu.name_id[op])] if op >= 0 else UNJOINED
        groups[(op_name, int(g.name_id[row]), int(g.kind[row]))].append(row)
    out = []
    for (op_name, name_id, kind), rows in groups.items():
        idx = np.asarray(rows)
        name = trace.names[name_id]
        kc = classify(name)
        dtype = next((d for d in dtypes[idx] if d), "")
        moved = float(np.nansum(g.bytes[idx])) if kind != KERNEL else float(bytes_[idx].sum())
        host_copy = kind != KERNEL and bool(re.search(r"HtoD|DtoH|Host|Pageable|Pinned", name))
        out.append(
            RooflinePoint(
                label=f"{op_name} → {short_kernel(name)}" if kind == KERNEL else name,
                op=kc.op if kind == KERNEL else "memcpy",
                phase=Phase.UNKNOWN,
                flops=float(flops[idx].sum()),
                bytes=moved,
                time_s=float(g.dur_us[idx].sum()) * MICRO,
                dtype=DTYPES[dtype].compute_roof if dtype in DTYPES else "",
                source=Source.TRACE,
                count=len(rows),
                level="pcie" if host_copy else "hbm",
                provenance={"kernel": name, "cpu_op": op_name, "class": kc.name, "file": trace.path, "rank": rank},
            )
        )
    return sorted(out, key=lambda p: -(p.time_s or 0.0))
