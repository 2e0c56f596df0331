"""Joins inside one trace: GPU activity -> launch call (``correlation``) -> CPU operator.

Kernels meet their host launch through ``correlation``, with both ``cuda_runtime`` and
``cuda_driver`` calls (Triton launches with ``cuLaunchKernel``). A launch meets its CPU operator
through ``External id`` when the trace writes matching ids, otherwise through the innermost CPU
operator on the same thread whose interval holds the launch (older Kineto writes the correlation
into ``External id``). Joins are partial in real traces; the unjoined rows are -1 and counted.
"""

from __future__ import annotations

import msgspec
import numpy as np

from rooftop.ingest.kineto import CpuTable, LaunchTable, Trace
from rooftop.ingest.tables import BOOL, F64, I64


class Joined(msgspec.Struct, frozen=True, eq=False):
    """Per GPU row: its launch row and CPU op row (-1 when unjoined); compared by identity, like the tables."""

    launch: I64
    op: I64


def by_key(keys: I64, table_keys: I64) -> I64:
    """Row of ``table_keys`` holding each key (first occurrence), -1 when absent or key < 0."""
    if table_keys.size == 0:
        return np.full(keys.size, -1, dtype=np.int64)
    uniq, first = np.unique(table_keys, return_index=True)
    pos = np.clip(np.searchsorted(uniq, keys), 0, uniq.size - 1)
    hit = (uniq[pos] == keys) & (keys >= 0)
    return np.where(hit, first[pos], -1).astype(np.int64)


def enclosing(cpu: CpuTable, thread: I64, ts_us: F64, eligible: BOOL | None = None) -> I64:
    """Innermost CPU op on ``thread`` whose [ts, ts+dur] holds each time, -1 when none.

    ``eligible`` (one flag per CPU row) restricts the answer to those ops.
    """
    out = np.full(ts_us.size, -1, dtype=np.int64)
    if cpu.ts_us.size == 0 or ts_us.size == 0:
        return out
    # Sweep per thread: ops sorted by (start, -dur) so parents come before children; a stack of open ops.
    op_order = np.lexsort((-cpu.dur_us, cpu.ts_us, cpu.thread))
    if eligible is not None:
        op_order = op_order[eligible[op_order]]
    q_order = np.lexsort((ts_us, thread))
    threads = cpu.thread[op_order]
    # Python lists in the loop: indexing one is ~5x cheaper than a numpy scalar read.
    op_thread, op_ts = threads.tolist(), cpu.ts_us[op_order].tolist()
    op_end, rows = (cpu.ts_us[op_order] + cpu.dur_us[op_order]).tolist(), op_order.tolist()
    q_thread, q_ts = thread.tolist(), ts_us.tolist()
    found = out.tolist()
    n_ops = len(rows)
    i = 0
    stack: list[int] = []
    current = None
    for q in q_order.tolist():
        th, t = q_thread[q], q_ts[q]
        if th != current:
            current, stack = th, []
            i = int(np.searchsorted(threads, th, side="left"))
        while i < n_ops and op_thread[i] == th and op_ts[i] <= t:
            while stack and op_end[stack[-1]] < op_ts[i]:
                stack.pop()
            stack.append(i)
            i += 1
        while stack and op_end[stack[-1]] < t:
            stack.pop()
        if stack:
            found[q] = rows[stack[-1]]
    return np.array(found, dtype=np.int64)


def join(trace: Trace) -> Joined:
    """Launch and CPU-op rows for every GPU row of ``trace``."""
    launches: LaunchTable = trace.launches
    launch = by_key(trace.gpu.correlation, launches.correlation)
    has = launch >= 0
    op = np.full(launch.size, -1, dtype=np.int64)
    if np.any(has) and trace.cpu.ts_us.size:
        rows = launch[has]
        via_ext = by_key(launches.external_id[rows], trace.cpu.external_id)
        cpu, t = trace.cpu, launches.ts_us[rows]
        ok = via_ext >= 0
        safe = np.where(ok, via_ext, 0)
        # An External id match counts only when that op holds the launch on the same thread.
        ok &= (cpu.thread[safe] == launches.thread[rows]) & (cpu.ts_us[safe] <= t)
        ok &= t <= cpu.ts_us[safe] + cpu.dur_us[safe]
        via_ext = np.where(ok, via_ext, -1)
        missing = via_ext < 0
        if np.any(missing):
            via_ext[missing] = enclosing(trace.cpu, launches.thread[rows][missing], launches.ts_us[rows][missing])
        op[has] = via_ext
    return Joined(launch=launch, op=op)
