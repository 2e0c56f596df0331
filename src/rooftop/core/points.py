"""RooflinePoint: the one record that every source (analytic, measured, live) produces.

A plot, a report or the diagnosis never cares where a point came from. Derived quantities
(intensity, FLOP/s, B/s, attainable, roof efficiency) are computed, never stored.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import msgspec
import numpy as np

from rooftop.core.enums import Bound
from rooftop.core.roofs import Roofs, attainable


class Phase(str, Enum):
    """Which part of serving a point belongs to."""

    PREFILL = "prefill"
    DECODE = "decode"
    MIXED = "mixed"  # a trace or a live window that holds both
    UNKNOWN = "unknown"


class Source(str, Enum):
    """Where a point came from."""

    ANALYTIC = "analytic"
    MEASURED = "measured"  # torch.profiler run of a real model
    TRACE = "trace"  # imported Kineto / Chrome trace
    NCU = "ncu"  # Nsight Compute counters
    NSYS = "nsys"  # Nsight Systems: a kernel summary or a GPU trace
    MICROBENCH = "microbench"
    LIVE = "live"  # serving engine telemetry or load generator


class Traffic(msgspec.Struct, frozen=True):
    """Bytes an operator moves at HBM, split by what they are. All in bytes."""

    weight_bytes: float = 0.0
    act_in_bytes: float = 0.0
    act_out_bytes: float = 0.0
    kv_read_bytes: float = 0.0
    kv_write_bytes: float = 0.0

    @property
    def activation_bytes(self) -> float:
        """Activations read plus written."""
        return self.act_in_bytes + self.act_out_bytes

    @property
    def kv_bytes(self) -> float:
        """KV cache read plus written."""
        return self.kv_read_bytes + self.kv_write_bytes

    @property
    def total_bytes(self) -> float:
        """Every byte at HBM."""
        return self.weight_bytes + self.activation_bytes + self.kv_bytes


class RooflinePoint(msgspec.Struct, frozen=True):
    """One operator (or kernel, or live window) placed on the roofline.

    ``flops`` and ``bytes`` are totals over ``count`` occurrences; ``time_s`` likewise
    (predicted for analytic points, measured otherwise). ``bytes`` are at memory ``level``.
    ``link_bytes`` are bytes over the interconnect (collectives), drawn against the link roof.
    """

    label: str
    op: str
    phase: Phase
    flops: float
    bytes: float
    time_s: float | None
    dtype: str
    source: Source
    count: int = 1
    level: str = "hbm"
    traffic: Traffic | None = None
    link_bytes: float = 0.0
    bound: Bound = Bound.NONE
    provenance: dict[str, Any] = msgspec.field(default_factory=dict)

    def __post_init__(self) -> None:
        if type(self.bound) is not Bound:  # a plain word is accepted
            msgspec.structs.force_setattr(self, "bound", Bound(self.bound))

    @property
    def name(self) -> str:
        """The point's name: ``name`` in the JSON artifact and the DataFrame (``label`` is the field)."""
        return self.label

    @property
    def intensity(self) -> float:
        """Arithmetic intensity, FLOP per byte at ``level``: inf for FLOPs without bytes, NaN for neither.

        A kernel known only by its time (no recorded shapes, a collective) has no intensity, not an
        infinite one: 0 FLOP / 0 B is 0/0, written as null with the reason ``nan``.
        """
        if self.bytes > 0:
            return self.flops / self.bytes
        return float("inf") if self.flops > 0 else float("nan")

    @property
    def flop_per_s(self) -> float:
        """Achieved (or predicted) FLOP/s."""
        return self.flops / self.time_s if self.time_s else float("nan")

    @property
    def bytes_per_s(self) -> float:
        """Achieved (or predicted) B/s at ``level``."""
        return self.bytes / self.time_s if self.time_s else float("nan")

    def attainable_flop_per_s(self, roofs: Roofs) -> float:
        """The roofline's ceiling at this point's intensity, for its dtype and level (NaN with no compute roof)."""
        if not roofs.compute:
            return float("nan")
        dtype = self.dtype if roofs.has_compute(self.dtype) else _fallback_dtype(roofs)
        return float(attainable(self.intensity, roofs.peak(dtype), roofs.bandwidth(self.level)))

    def roof_efficiency(self, roofs: Roofs) -> float:
        """Achieved FLOP/s over attainable; for zero-FLOP ops, achieved B/s over the level roof."""
        if not self.time_s:
            return float("nan")
        if self.flops == 0:
            return self.bytes_per_s / roofs.bandwidth(self.level) if self.bytes > 0 else float("nan")
        return self.flop_per_s / self.attainable_flop_per_s(roofs)


def _fallback_dtype(roofs: Roofs) -> str:
    for candidate in ("bf16", "fp16", "fp32"):
        if roofs.has_compute(candidate):
            return candidate
    return roofs.compute[0].dtype


def total_time_s(points: list[RooflinePoint]) -> float:
    """Sum of the points' times (NaN-safe)."""
    return float(np.nansum([p.time_s for p in points if p.time_s is not None]))
