"""Roofs: compute ceilings per dtype, bandwidth ceilings per memory level and link.

Datasheet, theoretical and measured roofs are different objects with a ``kind`` and a source;
plots draw them differently. The roofline maths are pure vectorised functions (arrays in,
arrays out), so one call evaluates a whole grid of workloads.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np
from msgspec.structs import replace

from rooftop.errors import CatalogError, did_you_mean

if TYPE_CHECKING:  # numpy.typing is ~1 ms of a cold start, and annotations only
    from numpy.typing import ArrayLike, NDArray

    Array = NDArray[np.float64]


class RoofKind(str, Enum):
    """Where a roof's number comes from."""

    DATASHEET = "datasheet"
    THEORETICAL = "theoretical"
    MEASURED = "measured"


class ComputeRoof(msgspec.Struct, frozen=True):
    """Peak arithmetic rate for one dtype (dense, FLOP/s)."""

    dtype: str
    flop_per_s: float
    kind: RoofKind = RoofKind.DATASHEET
    source: str = ""


class MemoryRoof(msgspec.Struct, frozen=True):
    """Peak bandwidth of one memory level ('hbm', 'l2', 'l1') or link ('link', 'pcie'), B/s."""

    level: str
    bytes_per_s: float
    kind: RoofKind = RoofKind.DATASHEET
    source: str = ""


class Roofs(msgspec.Struct, frozen=True):
    """The ceilings of one device: compute per dtype, bandwidth per level, plus capacity."""

    name: str
    compute: tuple[ComputeRoof, ...]
    memory: tuple[MemoryRoof, ...]
    capacity_bytes: float = float("nan")
    vendor: str = ""
    identity: dict[str, Any] = msgspec.field(default_factory=dict)

    def compute_roof(self, dtype: str) -> ComputeRoof:
        """The compute roof for ``dtype``; int4/fp4 weights without a roof fall back to bf16."""
        for roof in self.compute:
            if roof.dtype == dtype:
                return roof
        raise CatalogError(
            f"{self.name} has no {dtype} compute roof{did_you_mean(dtype, [r.dtype for r in self.compute])}"
        )

    def has_compute(self, dtype: str) -> bool:
        """Whether a compute roof for ``dtype`` is known."""
        return any(r.dtype == dtype for r in self.compute)

    def peak(self, dtype: str) -> float:
        """Peak FLOP/s for ``dtype``."""
        return self.compute_roof(dtype).flop_per_s

    def memory_roof(self, level: str = "hbm") -> MemoryRoof:
        """The bandwidth roof of ``level``."""
        for roof in self.memory:
            if roof.level == level:
                return roof
        raise CatalogError(
            f"{self.name} has no {level} bandwidth roof{did_you_mean(level, [r.level for r in self.memory])}"
        )

    def has_memory(self, level: str) -> bool:
        """Whether a bandwidth roof for ``level`` is known."""
        return any(r.level == level for r in self.memory)

    def bandwidth(self, level: str = "hbm") -> float:
        """Peak B/s of ``level``."""
        return self.memory_roof(level).bytes_per_s

    def ridge(self, dtype: str, level: str = "hbm") -> float:
        """Ridge point (FLOP/B) where the ``dtype`` compute roof meets the ``level`` roof."""
        return float(ridge(self.peak(dtype), self.bandwidth(level)))

    def with_overrides(self, peak_flop_per_s: float | None = None, bandwidth_bytes_per_s: float | None = None) -> Roofs:
        """Return a copy whose every compute roof (or the HBM roof) is replaced by a user figure."""
        compute = self.compute
        memory = self.memory
        if peak_flop_per_s is not None:
            compute = tuple(
                replace(r, flop_per_s=peak_flop_per_s, kind=RoofKind.THEORETICAL, source="--peak-tflops")
                for r in compute
            )
        if bandwidth_bytes_per_s is not None:
            memory = tuple(
                replace(r, bytes_per_s=bandwidth_bytes_per_s, kind=RoofKind.THEORETICAL, source="--bandwidth")
                if r.level == "hbm"
                else r
                for r in memory
            )
        return replace(self, compute=compute, memory=memory)


def ridge(peak_flop_per_s: ArrayLike, bandwidth_bytes_per_s: ArrayLike) -> Array:
    """Ridge point I* = P_peak / B_mem (FLOP/B). H100 SXM bf16: 989.4e12 / 3.35e12 = 295.3."""
    return np.asarray(peak_flop_per_s, dtype=np.float64) / np.asarray(bandwidth_bytes_per_s, dtype=np.float64)


def attainable(intensity: ArrayLike, peak_flop_per_s: ArrayLike, bandwidth_bytes_per_s: ArrayLike) -> Array:
    """Attainable FLOP/s = min(P_peak, B_mem × I) — the roofline."""
    i = np.asarray(intensity, dtype=np.float64)
    return np.minimum(np.asarray(peak_flop_per_s, dtype=np.float64), np.asarray(bandwidth_bytes_per_s) * i)


def bound_time(
    flops: ArrayLike, bytes_: ArrayLike, peak_flop_per_s: ArrayLike, bandwidth_bytes_per_s: ArrayLike
) -> Array:
    """Time at the roof: max(FLOPs / P_peak, bytes / B_mem) seconds (no overlap loss assumed)."""
    f = np.asarray(flops, dtype=np.float64)
    b = np.asarray(bytes_, dtype=np.float64)
    out: Array = np.maximum(f / np.asarray(peak_flop_per_s), b / np.asarray(bandwidth_bytes_per_s))
    return out


def roof_efficiency(
    achieved_flop_per_s: ArrayLike,
    intensity: ArrayLike,
    peak_flop_per_s: ArrayLike,
    bandwidth_bytes_per_s: ArrayLike,
) -> Array:
    """Achieved FLOP/s divided by the attainable FLOP/s at the point's intensity (0..1 below the roof)."""
    roof = attainable(intensity, peak_flop_per_s, bandwidth_bytes_per_s)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(roof > 0, np.asarray(achieved_flop_per_s, dtype=np.float64) / roof, np.nan)
