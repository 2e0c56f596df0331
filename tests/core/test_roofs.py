import numpy as np
import pytest

from rooftop.core.roofs import ComputeRoof, MemoryRoof, RoofKind, Roofs, attainable, bound_time, ridge, roof_efficiency
from rooftop.errors import CatalogError

ROOFS = Roofs("x", (ComputeRoof("bf16", 800e12),), (MemoryRoof("hbm", 3e12),))


def test_seed_003_example():
    # seed 003 §4: 800 TFLOP/s and 3 TB/s -> ridge ≈ 267 FLOP/B
    assert float(ridge(800e12, 3e12)) == pytest.approx(266.67, abs=0.01)
    assert ROOFS.ridge("bf16") == pytest.approx(266.67, abs=0.01)


def test_attainable_is_vectorised():
    # seed 003 Q1: 20 FLOP/B at 2 TB/s -> 40 TFLOP/s
    out = attainable(np.array([1, 20, 1000]), 800e12, 2e12)
    np.testing.assert_allclose(out, [2e12, 40e12, 800e12])


def test_bound_time_and_efficiency():
    assert float(bound_time(1e12, 1e9, 1e15, 1e12)) == pytest.approx(1e-3)  # max(1 ms, 1 ms)
    assert float(bound_time(1e12, 1e6, 1e15, 1e12)) == pytest.approx(1e-3)  # compute
    assert float(roof_efficiency(20e12, 20, 800e12, 2e12)) == pytest.approx(0.5)  # 20 of the 40 attainable


def test_missing_roofs_are_errors():
    with pytest.raises(CatalogError, match="no fp8 compute roof"):
        ROOFS.peak("fp8")
    with pytest.raises(CatalogError, match="no l2"):
        ROOFS.bandwidth("l2")


def test_overrides_are_labelled():
    r = ROOFS.with_overrides(100e12, 1e12)
    assert r.peak("bf16") == 100e12 and r.bandwidth() == 1e12
    assert r.compute_roof("bf16").kind is RoofKind.THEORETICAL
    assert r.memory_roof("hbm").source == "--bandwidth"
