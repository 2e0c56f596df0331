"""One configuration of an Evaluation as Totals and a memory-budget record."""

from __future__ import annotations

from typing import Any

import numpy as np

from rooftop.analytic.cost import Array
from rooftop.analytic.engine import BOUNDS, Evaluation, memory_kind
from rooftop.analytic.memory import MemoryBudget
from rooftop.core.enums import Bound
from rooftop.core.totals import Totals


def _at(x: Array, index: tuple[int, ...] | int) -> float:
    arr = np.asarray(x)
    return float(arr[index]) if arr.ndim else float(arr)


def _grid_shape(ev: Evaluation) -> tuple[int, ...]:
    return np.shape(ev.time_s)


def totals_at(ev: Evaluation, index: tuple[int, ...] | int = ()) -> Totals:
    """Totals of the configuration at ``index`` (``()`` for a scalar workload)."""
    shape = _grid_shape(ev)

    def at(x: Array) -> float:
        return _at(np.broadcast_to(x, shape), index)

    weight = at(ev.total("weight_bytes"))
    kv_read = at(ev.total("kv_read_bytes"))
    kv_write = at(ev.total("kv_write_bytes"))
    act = at(ev.total("act_in_bytes")) + at(ev.total("act_out_bytes"))
    bound = str(BOUNDS[int(at(ev.bound))])
    if bound == "memory":
        bound = f"memory:{memory_kind(weight, kv_read + kv_write, act)}"
    return Totals(
        phase=ev.workload.phase.value,
        time_s=at(ev.time_s),
        tokens=at(ev.workload.tokens),
        flops=at(ev.total("flops")),
        model_flops=at(ev.total("model_flops")),
        bytes=at(ev.bytes),
        weight_bytes=weight,
        kv_read_bytes=kv_read,
        kv_write_bytes=kv_write,
        activation_bytes=act,
        link_bytes=at(ev.total("link_bytes")),
        mfu=at(ev.mfu),
        hfu=at(ev.hfu),
        mbu=at(ev.mbu),
        bound=Bound(bound),
        peak_flop_per_s=ev.peak_flop_per_s,
        bandwidth_bytes_per_s=ev.roofs.bandwidth("hbm"),
    )


def memory_at(mem: MemoryBudget, index: tuple[int, ...] | int = ()) -> dict[str, Any]:
    """The memory record of the schema: weights, KV at this context, activations, free, max batch."""
    shape = np.broadcast_shapes(np.shape(mem.kv_cache_bytes), np.shape(mem.max_batch))

    def at(x: Array | float) -> float:
        return _at(np.broadcast_to(np.asarray(x, dtype=np.float64), shape), index)

    return {
        "capacity_bytes": mem.capacity_bytes,
        "usable_bytes": mem.usable_bytes,
        "weights_bytes": mem.weights_bytes,
        "kv_cache_bytes": at(mem.kv_cache_bytes),
        "kv_bytes_per_sequence": at(mem.kv_bytes_per_sequence),
        "activation_bytes": at(mem.activation_bytes),
        "free_bytes": at(mem.free_bytes),
        "fits": bool(at(mem.fits.astype(np.float64))),
        "max_batch": int(at(mem.max_batch)) if np.isfinite(at(mem.max_batch)) else None,
    }
