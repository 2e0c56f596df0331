"""Timeline of one trace: busy, idle, gaps and who caused them, launch delay, NCCL overlap, CUDA graphs.

Conventions (shared with the fixture READMEs and HTA):

* kernels only (``cat=kernel``); memcpy/memset are counted apart;
* busy = length of the union of kernel intervals over every stream; span = first start to last
  end; idle = span - busy; a gap is a hole between merged intervals;
* a kernel is communication when its name matches the ``communication`` class (NCCL/RCCL);
  compute = every other kernel; overlap = |communication union ∩ compute union|;
* a gap is ``sync`` while a blocking host call (cudaDeviceSynchronize, ...) runs, else ``copy``
  while a memcpy/memset runs on the GPU (the kernels wait for data), else ``host`` while some CPU
  op runs (the GPU waits for the host to launch), ``other`` otherwise.

All output durations are seconds (SI); ``largest_gap_start_us`` stays in the trace's clock (µs)
so the gap can be found in a trace viewer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rooftop.ingest import intervals as iv
from rooftop.ingest.builder import INT64_BOUND
from rooftop.ingest.join import Joined
from rooftop.ingest.kineto import KERNEL, MEMCPY, MEMSET, Trace
from rooftop.ingest.mapping import load
from rooftop.torchops.dtype_names import scalar_type
from rooftop.torchops.kernel_classes import classify, collective_label, collective_of, is_communication
from rooftop.units import MICRO

GAP_REPORT_US = 10.0  # gaps longer than this are counted (HTA's default threshold)


def gpu_names(trace: Trace) -> list[int]:
    """Ids of the names GPU rows use (kernel and copy names, not the CPU ops' or launch calls')."""
    if trace.gpu.name_id.size == 0:
        return []
    return np.flatnonzero(np.bincount(trace.gpu.name_id, minlength=len(trace.names))).tolist()


def per_name(trace: Trace, fn: Any, default: Any, dtype: Any) -> np.ndarray[Any, Any]:
    """``fn(name)`` per name id, evaluated once per distinct GPU-row name (``default`` elsewhere)."""
    out = np.full(max(len(trace.names), 1), default, dtype=dtype)
    for i in gpu_names(trace):
        out[i] = fn(trace.names[i])
    return out


def name_mask(trace: Trace, predicate: Any) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Per GPU row: whether ``predicate(name)`` holds, evaluated once per distinct name."""
    mask = per_name(trace, lambda n: bool(predicate(n)), False, bool)
    return mask[trace.gpu.name_id] if trace.gpu.name_id.size else np.zeros(0, dtype=bool)


def _names_in(trace: Trace, ids: np.ndarray[Any, Any], wanted: set[str]) -> np.ndarray[Any, np.dtype[np.bool_]]:
    per_name = np.array([n in wanted for n in trace.names] or [False], dtype=bool)
    return per_name[ids] if ids.size else np.zeros(0, dtype=bool)


GAP_CAUSES = ("gap_host_s", "gap_sync_s", "gap_copy_s", "gap_other_s")  # the keys of the idle time's causes


def busy_and_gaps(ts: np.ndarray[Any, Any], dur: np.ndarray[Any, Any], base: float = 0.0) -> dict[str, Any]:
    """Busy, span, idle (µs) and the largest gap of intervals whose starts are ``ts - base``."""
    merged = iv.merge(ts, ts + dur)
    busy = iv.length(merged)
    span = float(merged[1][-1] - merged[0][0]) if merged[0].size else 0.0
    g0, g1 = iv.gaps(merged)
    widths = g1 - g0
    largest = int(np.argmax(widths)) if widths.size else -1
    return {
        "merged": merged,
        "busy": busy,
        "span": span,
        "idle": span - busy,
        "largest_gap": float(widths[largest]) if largest >= 0 else 0.0,
        "largest_gap_start": float(g0[largest]) + base if largest >= 0 else float("nan"),
        "largest_gap_offset": float(g0[largest] - merged[0][0]) if largest >= 0 else float("nan"),
        "gaps_over": int(np.sum(widths > GAP_REPORT_US)),
    }


def _gap_causes(trace: Trace, merged: iv.Merged, base: float) -> dict[str, float]:
    gaps = iv.gaps(merged)
    total = iv.length(gaps)
    sync_names = set(load("kineto_v1")["runtime"]["sync"])
    launches = trace.launches
    is_sync = _names_in(trace, launches.name_id, sync_names)
    sync_ts = launches.ts_us[is_sync] - base
    sync = iv.merge(sync_ts, sync_ts + launches.dur_us[is_sync])
    gpu = trace.gpu
    is_copy = (gpu.kind == MEMCPY) | (gpu.kind == MEMSET)
    copy_ts = gpu.ts_us[is_copy] - base
    copy = iv.union(iv.merge(copy_ts, copy_ts + gpu.dur_us[is_copy]), sync)
    cpu_ts = trace.cpu.ts_us - base
    cpu = iv.merge(cpu_ts, cpu_ts + trace.cpu.dur_us)
    in_sync = iv.overlap(gaps, sync)
    in_copy = iv.overlap(gaps, copy) - in_sync
    in_host = iv.overlap(gaps, iv.union(cpu, copy)) - in_sync - in_copy
    return {
        "gap_sync_s": in_sync * MICRO,
        "gap_copy_s": in_copy * MICRO,
        "gap_host_s": in_host * MICRO,
        "gap_other_s": (total - in_sync - in_copy - in_host) * MICRO,
    }


def quantile(x: np.ndarray[Any, Any], q: float) -> float:
    """``np.quantile(x, q)`` (linear method; the median as numpy's mean of the middle pair), bit for bit.

    Written out because ``np.median``/``np.percentile`` (like a plain ``np.unique``) import
    ``numpy.ma`` on first use (~10 ms, the largest fixed cost of importing a small trace).
    """
    s = np.sort(np.asarray(x, dtype=np.float64))
    n = s.size
    if q == 0.5:
        m = n // 2
        return float(s[m]) if n % 2 else float((s[m - 1] + s[m]) / 2.0)
    pos = (n - 1) * q
    lo = int(np.floor(pos))
    t = pos - lo
    a, b = float(s[lo]), float(s[min(lo + 1, n - 1)])
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def _launch(trace: Trace, joined: Joined, kernel: np.ndarray[Any, Any]) -> dict[str, Any]:
    """Launch delay and cost of the kernels launched one by one.

    A CUDA/HIP-graph replay launches all its kernels with ONE host call that shares their
    correlation id: comparing each replayed kernel with that call would count a cost paid once per
    graph against every node. Replayed kernels are left out here (``graph_kernels`` counts them).
    """
    rows = joined.launch[kernel]
    ok = rows >= 0
    eager = ok.copy()
    eager[ok] = ~_graph_calls(trace)[rows[ok]]
    out: dict[str, Any] = {"joined": int(ok.sum()), "eager": int(eager.sum())}
    if not np.any(eager):
        return out
    start = trace.gpu.ts_us[kernel][eager]
    dur = trace.gpu.dur_us[kernel][eager]
    call_ts = trace.launches.ts_us[rows[eager]]
    call_dur = trace.launches.dur_us[rows[eager]]
    delay = start - call_ts
    return out | {
        "delay_median_s": quantile(delay, 0.5) * MICRO,
        "delay_p90_s": quantile(delay, 0.9) * MICRO,
        "call_median_s": quantile(call_dur, 0.5) * MICRO,
        "kernel_median_s": quantile(dur, 0.5) * MICRO,
        "shorter_than_launch_share": float(np.mean(dur < call_dur)),
    }


def _graph_calls(trace: Trace) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Per launch row: whether it is a graph launch (``runtime.graph_launch`` in kineto_v1.toml)."""
    return _names_in(trace, trace.launches.name_id, set(load("kineto_v1")["runtime"]["graph_launch"]))


def _graphs(trace: Trace, joined: Joined, kernel: np.ndarray[Any, Any]) -> dict[str, Any]:
    is_graph = _graph_calls(trace)
    rows = joined.launch[kernel]
    from_graph = np.zeros(rows.size, dtype=bool)
    ok = rows >= 0
    from_graph[ok] = is_graph[rows[ok]]
    return {"graph_launches": int(is_graph.sum()), "graph_kernels": int(from_graph.sum())}


def _collectives(trace: Trace, comm_rows: np.ndarray[Any, Any]) -> list[dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    by_name: dict[int, str] = {}  # collective named by the kernel, per distinct name
    rows = comm_rows.tolist()
    name_ids = trace.gpu.name_id[comm_rows].tolist()
    durations = trace.gpu.dur_us[comm_rows].tolist()
    for row, name_id, dur in zip(rows, name_ids, durations):
        args = trace.comm_args.get(row)
        if args is None:
            kind = by_name.get(name_id)
            if kind is None:
                kind = by_name[name_id] = collective_of(trace.names[name_id]) or "unknown"
            args = {}
        else:
            named = collective_label(str(args.get("collective") or ""))
            kind = named or collective_of(trace.names[name_id]) or "unknown"
        entry = table.get(kind)
        if entry is None:
            entry = table[kind] = {"collective": kind, "kernels": 0, "time_s": 0.0, "message_bytes": 0.0}
        entry["kernels"] += 1
        entry["time_s"] += dur * MICRO
        if args:
            nelems, kt = args.get("in_nelems"), scalar_type(args.get("comm_dtype"))
            if isinstance(nelems, int | float) and kt is not None and 0 <= nelems < INT64_BOUND:  # not 1e400 as an int
                entry["message_bytes"] += float(nelems) * kt.bytes
    return sorted(table.values(), key=lambda e: -e["time_s"])


def analyse(trace: Trace, joined: Joined) -> dict[str, Any]:
    """The ``timeline`` section of one trace (keys documented in docs/import.md)."""
    gpu = trace.gpu
    kernel = gpu.kind == KERNEL
    # Relative times: a float µs clock near 4e12 has a 0.5 ns step; subtracting first keeps ts + dur exact.
    base = float(np.min(gpu.ts_us[kernel])) if np.any(kernel) else 0.0
    ts, dur = gpu.ts_us[kernel] - base, gpu.dur_us[kernel]
    whole = busy_and_gaps(ts, dur, base)
    comm_all = name_mask(trace, is_communication)
    comm = comm_all[kernel]
    comm_merged = iv.merge(ts[comm], ts[comm] + dur[comm])
    compute_merged = iv.merge(ts[~comm], ts[~comm] + dur[~comm])
    unjoined = int(np.sum(joined.launch[kernel] < 0))
    streams, counts = np.unique(gpu.stream[kernel], return_counts=True)
    n = int(kernel.sum())
    return {
        "kernels": n,
        "busy_s": whole["busy"] * MICRO,
        "idle_s": whole["idle"] * MICRO,
        "span_s": whole["span"] * MICRO,
        "idle_share": whole["idle"] / whole["span"] if whole["span"] else 0.0,
        "largest_gap_s": whole["largest_gap"] * MICRO,
        "largest_gap_start_us": whole["largest_gap_start"],
        "largest_gap_offset_s": whole["largest_gap_offset"] * MICRO,  # from the first GPU activity
        "gaps_over_10us": whole["gaps_over"],
        "kernel_sum_s": float(np.sum(dur)) * MICRO,
        **_gap_causes(trace, whole["merged"], base),
        "nccl_kernels": int(comm.sum()),
        "nccl_s": iv.length(comm_merged) * MICRO,
        "nccl_sum_s": float(np.sum(dur[comm])) * MICRO,
        "comm_compute_overlap_s": iv.overlap(comm_merged, compute_merged) * MICRO,
        "collectives": _collectives(trace, np.flatnonzero(kernel & comm_all)),
        "host_side": bool(trace.launches.ts_us.size or trace.cpu.ts_us.size),  # False: an nsys GPU trace
        "unjoined_kernels": unjoined,
        "unjoined_share": unjoined / n if n else 0.0,
        "memcpy": int(np.sum(gpu.kind == MEMCPY)),
        "memset": int(np.sum(gpu.kind == MEMSET)),
        "streams": {str(int(s)): int(c) for s, c in zip(streams, counts)},
        "launch": _launch(trace, joined, kernel),
        "cuda_graph": _graphs(trace, joined, kernel),
        "classes": _class_times(trace, kernel),
        "skipped": dict(trace.skipped),
    }


def _class_times(trace: Trace, kernel: np.ndarray[Any, Any]) -> dict[str, float]:
    used = gpu_names(trace)
    labels = sorted({classify(trace.names[i]).name for i in used} or {"other"})
    code = {label: i for i, label in enumerate(labels)}
    codes = per_name(trace, lambda n: code[classify(n).name], 0, np.int64)
    per_kernel = codes[trace.gpu.name_id[kernel]]
    dur = trace.gpu.dur_us[kernel]
    out: dict[str, float] = {}
    for i in np.flatnonzero(np.bincount(per_kernel, minlength=len(labels))).tolist():  # no np.unique: see quantile
        out[labels[i]] = float(np.sum(dur[per_kernel == i])) * MICRO
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))
