"""Hand-made evidence for the measured-profile rules: totals and points with round numbers."""

from __future__ import annotations

from typing import Any

import pytest

from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.core.roofs import ComputeRoof, MemoryRoof, Roofs
from rooftop.core.totals import Totals
from rooftop.diagnose.engine import Evidence
from rooftop.diagnose.evidence.profile import ProfileEvidence

ROOFS = Roofs("cpu:toy", (ComputeRoof("fp32", 100e9),), (MemoryRoof("hbm", 20e9),))  # ridge 5 FLOP/B


def make_totals(**kw: Any) -> Totals:
    """A decode step of 10 ms: 1 GFLOP, 200 MB (150 MB weights, 50 MB KV), memory-bound."""
    base: dict[str, Any] = dict(phase="decode", time_s=10e-3, tokens=1.0, flops=1e9, model_flops=1e9, bytes=200e6,
                                weight_bytes=150e6, kv_read_bytes=50e6, kv_write_bytes=0.0, activation_bytes=0.0,
                                link_bytes=0.0, mfu=0.1, hfu=0.1, mbu=1.0, bound="memory:weights",
                                peak_flop_per_s=100e9, bandwidth_bytes_per_s=20e9)  # fmt: skip
    return Totals(**{**base, **kw})


def make_point(label: str, time_s: float, source: Source = Source.MEASURED, bound: str = "memory") -> RooflinePoint:
    """A point with 1 MFLOP over 1 MB (intensity 1, below the ridge 5)."""
    return RooflinePoint(label, label, Phase.DECODE, 1e6, 1e6, time_s, "fp32", source, bound=bound)


@pytest.fixture
def evidence():
    def build(points=(), totals=None, workload=None, profile=None) -> Evidence:
        prof = ProfileEvidence.from_dict(profile) if profile is not None else None
        return Evidence(list(points), ROOFS, totals, workload or {}, prof)

    return build
