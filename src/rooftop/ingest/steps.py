"""Per-``ProfilerStep`` breakdown: span, idle, compute and non-compute time of each step.

A GPU activity (kernel, memcpy, memset) belongs to the step whose ``ProfilerStep#N`` interval
holds its launch call (its own start when the launch is not in the trace). An activity without a
launch call that starts before the first launched activity of its stream belongs to no step: a
stream runs in order, so it was queued before the trace began (a GPU still working off the
warm-up steps when the profiler starts recording). Per step, like HTA's
temporal breakdown: span = last end - first start of the step's GPU activities, busy = their union,
idle = span - busy, compute = union of non-communication kernels, non_compute = busy - compute.

The last step is KEPT and flagged ``last: true``. HTA drops it because the profiler may stop
while its kernels still run; rooftop reports it so nothing measured disappears.

Per-step spans can overlap: a step's GPU work may still run when the next step's starts, so
their sum can exceed the wall time. ``totals_without_last`` is therefore not a sum of the rows
but HTA's own definition (``get_temporal_breakdown`` after ``_filter_irrelevant_gpu_kernels``):
ONE window over every GPU activity whose launch call starts before the last ``ProfilerStep``
(activities without a launch call are dropped, as HTA's correlation join drops them), span =
last end - first start, busy = union, compute = union of non-communication kernels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rooftop.ingest import intervals as iv
from rooftop.ingest.join import Joined
from rooftop.ingest.kineto import KERNEL, Trace
from rooftop.ingest.timeline import name_mask
from rooftop.torchops.kernel_classes import is_communication
from rooftop.units import MICRO


def step_of(trace: Trace, joined: Joined) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Per GPU row, the index into ``trace.steps`` (-1 outside every step)."""
    g = trace.gpu
    when = g.ts_us.copy()
    has = joined.launch >= 0
    when[has] = trace.launches.ts_us[joined.launch[has]]
    if not trace.steps or when.size == 0:
        return np.full(when.size, -1, dtype=np.int64)
    starts = np.array([s[1] for s in trace.steps])
    ends = starts + np.array([s[2] for s in trace.steps])
    idx = np.searchsorted(starts, when, side="right") - 1
    inside = (idx >= 0) & (when <= ends[np.clip(idx, 0, None)]) & ~_queued_before(g.stream, g.ts_us, has)
    return np.where(inside, idx, -1).astype(np.int64)


def _queued_before(stream: np.ndarray[Any, Any], ts: np.ndarray[Any, Any], has: np.ndarray[Any, Any]) -> Any:
    """Per GPU row: no launch call, and it starts before the first activity launched in the trace on its stream."""
    early = np.zeros(ts.size, dtype=bool)
    if not np.any(has) or np.all(has):
        return early
    for sid in sorted(set(stream[~has].tolist())):  # not np.unique: it imports numpy.ma
        on = stream == sid
        launched = on & has
        if np.any(launched):
            early |= on & ~has & (ts < ts[launched].min())
    return early


def breakdown(trace: Trace, joined: Joined) -> dict[str, Any]:
    """``{"steps": [...], "totals_without_last": {...}}``; empty when the trace has no ProfilerStep."""
    if not trace.steps:
        return {"steps": [], "totals_without_last": {}}
    g = trace.gpu
    which = step_of(trace, joined)
    comm = name_mask(trace, is_communication)
    base = float(np.min(g.ts_us)) if g.ts_us.size else 0.0
    rows = []
    for k, (name, _, _) in enumerate(trace.steps):
        sel = which == k
        entry: dict[str, Any] = {
            "step": name,
            "activities": int(sel.sum()),
            "kernels": int(np.sum(sel & (g.kind == KERNEL))),
        }
        entry.update(_window(trace, sel, comm, base))
        entry["last"] = k == len(trace.steps) - 1
        rows.append(entry)
    return {"steps": rows, "totals_without_last": _hta_totals(trace, joined, comm, base)}


def _window(trace: Trace, sel: np.ndarray[Any, Any], comm: np.ndarray[Any, Any], base: float) -> dict[str, float]:
    """Span, busy, idle, compute and non-compute of the GPU rows ``sel`` (empty when none)."""
    g = trace.gpu
    if not np.any(sel):
        return {}
    ts = g.ts_us[sel] - base
    busy = iv.merge(ts, ts + g.dur_us[sel])
    compute_rows = sel & (g.kind == KERNEL) & ~comm
    cts = g.ts_us[compute_rows] - base
    compute = iv.length(iv.merge(cts, cts + g.dur_us[compute_rows]))
    span = float(busy[1][-1] - busy[0][0])
    return {
        "span_s": span * MICRO,
        "busy_s": iv.length(busy) * MICRO,
        "idle_s": (span - iv.length(busy)) * MICRO,
        "compute_s": compute * MICRO,
        "non_compute_s": (iv.length(busy) - compute) * MICRO,
    }


def _hta_totals(trace: Trace, joined: Joined, comm: np.ndarray[Any, Any], base: float) -> dict[str, Any]:
    """HTA's temporal breakdown: one window over the activities launched before the last step starts."""
    g = trace.gpu
    last_start = trace.steps[-1][1]
    has = joined.launch >= 0
    sel = np.zeros(g.ts_us.size, dtype=bool)
    sel[has] = trace.launches.ts_us[joined.launch[has]] < last_start
    totals: dict[str, Any] = {"activities": int(sel.sum()), "kernels": int(np.sum(sel & (g.kind == KERNEL)))}
    zero = dict.fromkeys(("span_s", "busy_s", "idle_s", "compute_s", "non_compute_s"), 0.0)
    return totals | (_window(trace, sel, comm, base) or zero)
