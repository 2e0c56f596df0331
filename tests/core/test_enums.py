"""core/enums.py: Bound and Severity read and write the same words as the strings they replace."""

from __future__ import annotations

import json

import pytest

from rooftop.core.enums import Bound, Severity
from rooftop.core.findings import Finding
from rooftop.core.points import Phase, RooflinePoint, Source


def test_bounds_are_their_words() -> None:
    assert Bound("memory:kv") is Bound.MEMORY_KV and Bound.MEMORY_KV == "memory:kv"
    assert json.dumps({"bound": Bound.LINK}) == '{"bound": "link"}'
    assert [b.is_memory for b in (Bound.MEMORY, Bound.MEMORY_WEIGHTS, Bound.COMPUTE, Bound.NONE)] == [
        True,
        True,
        False,
        False,
    ]
    with pytest.raises(ValueError):
        Bound("memory:other")


def test_a_point_given_a_word_holds_the_enum() -> None:
    p = RooflinePoint("x", "gemm", Phase.DECODE, 1.0, 1.0, None, "bf16", Source.ANALYTIC, bound="compute")  # type: ignore[arg-type]
    assert p.bound is Bound.COMPUTE


def test_severity_orders_most_severe_first() -> None:
    assert sorted(Severity, key=lambda s: s.rank) == [Severity.CRITICAL, Severity.WARN, Severity.INFO]
    f = Finding("c", "warn", "t", "b")  # type: ignore[arg-type]
    assert f.severity is Severity.WARN and f.to_dict()["severity"] == "warn"
    assert Finding.from_dict(f.to_dict()) == f
