from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rooftop.errors import TelemetryError
from rooftop.serving.exposition import parse


def test_colon_names_labels_and_exponents() -> None:
    text = (
        "# HELP sglang:x help\n# TYPE sglang:x histogram\n"
        'sglang:x_bucket{le="0.07500000000000001",model_name="m"} 2.0\n'
        'sglang:x_bucket{le="+Inf",model_name="m"} 3.0\n'
        'sglang:x_sum{model_name="m"} 8.128902e+06\n'
        'sglang:x_count{model_name="m"} 3.0\n'
    )
    s = parse(text, 1.0)
    assert s.total("sglang:x_sum") == 8_128_902.0
    assert [x.label("le") for x in s.series("sglang:x_bucket")] == ["0.07500000000000001", "+Inf"]


def test_sum_over_label_sets() -> None:
    s = parse('a_total{e="0"} 2\na_total{e="1"} 3\n', 0.0)
    assert s.total("a_total") == 5  # two DP engines add up
    assert s.total("a_total", {"e": "1"}) == 3
    assert s.total("missing") is None


@pytest.mark.parametrize("garbage", ["<html>oops</html>", 'x{le="1" 5', "{}"])
def test_garbage_raises_typed_error_naming_source(garbage: str) -> None:
    with pytest.raises(TelemetryError, match="http://h:1/metrics"):
        parse(garbage, 0.0, source="http://h:1/metrics")


@given(st.text(max_size=200))
def test_fuzz_never_raises_untyped(text: str) -> None:
    try:
        parse(text, 0.0, "fuzz")
    except TelemetryError:
        pass
