"""One Trace per GPU of a file that holds several; the host side (launch calls, CPU ops, steps) is shared.

nsys profiles every GPU of the process tree in one report, and one PyTorch process that drives
several GPUs (``device_map="auto"``, DataParallel) records them all in one Kineto trace. Read as
one device, such a file's busy time is the union of its GPUs' and its FLOPs are divided by one
GPU's peak; per device, each GPU has its own timeline and points. The launch calls and CPU ops
stay whole in every view: the join only follows the correlations of the view's kernels, and a
synchronising call holds up the host for every GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from msgspec.structs import replace

from rooftop.ingest.mapping import load
from rooftop.ingest.tables import GpuTable, Trace


def device_indices(trace: Trace) -> list[int]:
    """The device indices of the trace's GPU rows, ascending (-1: a row that names none)."""
    return sorted(set(trace.gpu.device.tolist()))  # not np.unique: its first call imports numpy.ma (~10 ms)


def per_device(trace: Trace) -> list[tuple[int, Trace]]:
    """``(index, trace)`` per GPU of ``trace``; the trace itself when its GPU rows are on one device.

    A view keeps the file's metadata with its own device's properties, its GPU rows with their
    NCCL arguments, and as ``events`` the file's less the rows of the other devices.
    """
    indices = device_indices(trace)
    if len(indices) <= 1:
        return [(indices[0] if indices else 0, trace)]
    out = []
    for index in indices:
        keep = trace.gpu.device == index
        rows = np.flatnonzero(keep).tolist()
        gpu = GpuTable(*(getattr(trace.gpu, name)[keep] for name in GpuTable.__struct_fields__))
        moved = {old: new for new, old in enumerate(rows)}
        comm = {moved[row]: args for row, args in trace.comm_args.items() if row in moved}
        events = trace.events - (trace.gpu.device.size - len(rows))
        view = replace(trace, gpu=gpu, comm_args=comm, metadata=_metadata(trace.metadata, index), events=events)
        out.append((index, view))
    return out


def _metadata(metadata: dict[str, Any], index: int) -> dict[str, Any]:
    """The metadata with only device ``index``'s entry in its device properties (``id`` names it)."""
    out = dict(metadata)
    for key in load("kineto_v1")["metadata"]["device_properties"]:
        props = metadata.get(key)
        if isinstance(props, list):
            mine = [p for p in props if isinstance(p, dict) and p.get("id") == index]
            out[key] = mine
    return out
