"""Measured RooflinePoints from attributed steps: one point per operator class and phase.

Decode points are the mean over the profiled decode steps (per step); prefill has one step.
``count`` is the number of aten ops per step folded into the point. The step summary reports
what the roofline does not explain: gaps between ops, ops no class claims, KV-cache copies.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from rooftop.core.enums import Bound
from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.core.roofs import Roofs
from rooftop.measure.attribution import StepProfile

UNATTRIBUTED = ("other",)


def phase_steps(steps: list[StepProfile], phase: str) -> list[StepProfile]:
    """The steps of one phase."""
    return [s for s in steps if s.phase == phase]


def measured_points(steps: list[StepProfile], phase: str, dtype: str, roofs: Roofs) -> list[RooflinePoint]:
    """Per-class points of ``phase``, averaged per step."""
    chosen = phase_steps(steps, phase)
    if not chosen:
        return []
    n = len(chosen)
    agg: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"time_s": 0.0, "flops": 0.0, "bytes": 0.0, "count": 0, "aten": defaultdict(float)}
    )
    for step in chosen:
        for op in step.ops:
            a = agg[op.cls]
            a["time_s"] += op.time_s
            a["flops"] += op.flops
            a["bytes"] += op.bytes
            a["count"] += 1
            a["aten"][op.aten] += op.time_s
    ridge = roofs.ridge(dtype if roofs.has_compute(dtype) else roofs.compute[0].dtype)
    points = []
    for cls, a in agg.items():
        flops, bytes_ = a["flops"] / n, a["bytes"] / n
        intensity = flops / bytes_ if bytes_ else float("inf")
        top = sorted(a["aten"].items(), key=lambda kv: -kv[1])[:3]
        points.append(
            RooflinePoint(
                label=cls,
                op=cls,
                phase=Phase(phase),
                flops=flops,
                bytes=bytes_,
                time_s=a["time_s"] / n,
                dtype=dtype,
                source=Source.MEASURED,
                count=max(1, round(a["count"] / n)),
                bound=Bound.COMPUTE if intensity >= ridge else Bound.MEMORY,
                provenance={"steps": n, "aten_ops": [name for name, _ in top], "bytes_from": "shapes"},
            )
        )
    return points


def step_summary(steps: list[StepProfile], phase: str) -> dict[str, Any]:
    """Mean step time, time in ops, gaps, unattributed ops, KV-append share, and accounted share."""
    chosen = phase_steps(steps, phase)
    if not chosen:
        return {}
    n = len(chosen)
    step_s = sum(s.time_s for s in chosen) / n
    op_s = sum(s.op_time_s for s in chosen) / n
    gap_s = sum(s.gap_s for s in chosen) / n
    other_s = sum(o.time_s for s in chosen for o in s.ops if o.cls in UNATTRIBUTED) / n
    kv_s = sum(o.time_s for s in chosen for o in s.ops if o.cls == "kv_append") / n
    kv_bytes = sum(o.bytes for s in chosen for o in s.ops if o.cls == "kv_append") / n
    return {
        "steps": n,
        "step_time_s": step_s,
        "op_time_s": op_s,
        "gap_s": gap_s,
        "unattributed_s": other_s,
        "kv_append_s": kv_s,
        "kv_append_bytes": kv_bytes,
        "accounted_share": (op_s - other_s + gap_s) / step_s if step_s else float("nan"),
        "gap_share": gap_s / step_s if step_s else float("nan"),
        "step_times_s": [s.time_s for s in chosen],
    }
