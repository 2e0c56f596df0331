"""Evaluate a workload (or a grid of them) against roofs: per-operator time, bound and totals.

Every operator is placed under the roofs on its own: time = max(FLOPs / compute roof,
HBM bytes / HBM roof, link bytes / link roof), and the step is the sum of its operators (no
overlap between operators is assumed, as LLM-Viewer and llm-analysis do). Matrix operators run
on the workload's compute dtype roof; elementwise operators (norms, softmax, activations) on the
vector (fp32 non-tensor) roof when the catalog has one.

All arrays broadcast over the workload grid, so one call evaluates thousands of configurations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import numpy as np
from numpy.typing import NDArray

from rooftop.analytic.cost import Array
from rooftop.analytic.decompose import Op, decompose
from rooftop.core.enums import Bound
from rooftop.core.points import Phase, RooflinePoint, Source, Traffic
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.errors import CatalogError
from rooftop.models.spec import ModelSpec

BOUNDS = np.array(["compute", "memory", "link"])


class OpTiming(msgspec.Struct, frozen=True):
    """An operator with its roof time (per occurrence) and binding roof, as grid arrays."""

    op: Op
    time_s: Array
    bound: NDArray[np.int8]  # index into BOUNDS
    link_bytes_per_s: float = float("nan")  # the link roof its link bytes were timed on (NaN: none)


class Evaluation(msgspec.Struct, frozen=True):
    """Per-operator and total figures of one model × workload (grid) × roofs."""

    spec: ModelSpec
    workload: Workload
    roofs: Roofs
    ops: tuple[OpTiming, ...]

    def total(self, field: str) -> Array:
        """Σ count × ``field`` over operators (a cost field such as 'flops' or 'kv_read_bytes')."""
        return sum((getattr(t.op.cost, field) * t.op.count for t in self.ops), start=np.zeros(()))

    @property
    def time_s(self) -> Array:
        """Step time at the roofs: Σ count × per-op roof time."""
        return sum((t.time_s * t.op.count for t in self.ops), start=np.zeros(()))

    @property
    def bytes(self) -> Array:
        """All HBM bytes of the step."""
        return sum((t.op.cost.bytes * t.op.count for t in self.ops), start=np.zeros(()))

    @property
    def tokens_per_s(self) -> Array:
        """Prefill: prompt tokens/s processed; decode: output tokens/s across the batch."""
        return self.workload.tokens / self.time_s

    @property
    def peak_flop_per_s(self) -> float:
        """The compute roof MFU and HFU are measured against (the workload's compute dtype)."""
        return self.roofs.peak(self.workload.compute)

    @property
    def mfu(self) -> Array:
        """Model FLOPs (matmuls, causal pairs) / time / peak."""
        return self.total("model_flops") / self.time_s / self.peak_flop_per_s

    @property
    def hfu(self) -> Array:
        """Executed FLOPs (all operators, per the causal convention) / time / peak."""
        return self.total("flops") / self.time_s / self.peak_flop_per_s

    @property
    def mbu(self) -> Array:
        """(Weight bytes + KV bytes read) / time / HBM bandwidth."""
        useful = self.total("weight_bytes") + self.total("kv_read_bytes")
        return useful / self.time_s / self.roofs.bandwidth("hbm")

    @property
    def bound(self) -> Array:
        """Index into BOUNDS of the roof that binds most of the step's time."""
        shares = np.stack(
            np.broadcast_arrays(
                *(
                    sum(((t.bound == i) * t.time_s * t.op.count for t in self.ops), start=np.zeros(()))
                    for i in range(len(BOUNDS))
                )
            )
        )
        out: Array = np.argmax(shares, axis=0)
        return out


Transform = Callable[["Evaluation"], "Evaluation"]  # rewrites an evaluation (expert parallelism)


def same(ev: Evaluation) -> Evaluation:
    """The identity transform."""
    return ev


def roof_rates(roofs: Roofs, w: Workload) -> dict[str, float]:
    """The compute and bandwidth rates operators are timed against (link NaN when absent)."""
    tensor = roofs.peak(w.compute)
    vector = roofs.peak("fp32") if roofs.has_compute("fp32") else tensor
    link = roofs.bandwidth("link") if roofs.has_memory("link") else float("nan")
    if w.tp > 1 and not link == link:
        raise CatalogError(f"{roofs.name} has no interconnect bandwidth; tp={w.tp} needs one (add it to a catalog)")
    return {"tensor": tensor, "vector": vector, "hbm": roofs.bandwidth("hbm"), "link": link}


def time_op(op: Op, rates: dict[str, float], link: bool) -> OpTiming:
    """One operator under the roofs: max(compute, HBM and, when ``link``, link time)."""
    c = op.cost
    compute_t = c.flops / rates[c.unit]
    memory_t = c.bytes / rates["hbm"]
    time_s = np.maximum(compute_t, memory_t)
    bound = (memory_t > compute_t).astype(np.int8)  # 0 compute, 1 memory (ties go to compute)
    if link:
        link_t = c.link_bytes / rates["link"]
        bound = np.where(link_t > time_s, np.int8(2), bound)
        time_s = np.maximum(time_s, link_t)
    return OpTiming(op, time_s, bound, rates["link"] if link else float("nan"))


def evaluate(spec: ModelSpec, workload: Workload, roofs: Roofs) -> Evaluation:
    """Decompose ``spec`` under ``workload`` and time every operator at ``roofs``."""
    rates = roof_rates(roofs, workload)
    timed = tuple(time_op(op, rates, workload.tp > 1) for op in decompose(spec, workload))
    return Evaluation(spec, workload, roofs, timed)


def memory_kind(op_cost_weight: float, kv: float, act: float) -> str:
    """Which bytes dominate a memory-bound operator: 'weights', 'kv' or 'activations'."""
    return ("weights", "kv", "activations")[int(np.argmax([op_cost_weight, kv, act]))]


def to_points(ev: Evaluation, index: tuple[int, ...] | int = ()) -> list[RooflinePoint]:
    """RooflinePoints (source=analytic) for one configuration of an evaluation."""
    w = ev.workload.scalar(index) if index != () else ev.workload
    provenance: dict[str, Any] = {"model": ev.spec.name, "hardware": ev.roofs.name, "workload": w.describe()}
    shape = np.shape(ev.time_s)
    points = []
    for t in ev.ops:
        c = t.op.cost
        n = t.op.count

        def at(x: Array, n: int = n) -> float:
            return float(np.broadcast_to(x, shape)[index]) * n

        traffic = Traffic(
            at(c.weight_bytes), at(c.act_in_bytes), at(c.act_out_bytes), at(c.kv_read_bytes), at(c.kv_write_bytes)
        )
        bound = str(BOUNDS[int(np.broadcast_to(t.bound, shape)[index])])
        if bound == "memory":
            bound = f"memory:{memory_kind(traffic.weight_bytes, traffic.kv_bytes, traffic.activation_bytes)}"
        points.append(
            RooflinePoint(
                label=t.op.name,
                op=t.op.kind,
                phase=Phase(ev.workload.phase),
                flops=at(c.flops),
                bytes=traffic.total_bytes,
                time_s=at(t.time_s),
                dtype=ev.workload.compute if c.unit == "tensor" else "fp32",
                source=Source.ANALYTIC,
                count=n,
                traffic=traffic,
                link_bytes=at(c.link_bytes),
                bound=Bound(bound),
                provenance={**provenance, "model_flops": at(c.model_flops), "group": t.op.group},
            )
        )
    return points
