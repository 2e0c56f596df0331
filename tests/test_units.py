import pytest

from rooftop.errors import WorkloadError
from rooftop.units import GIB, TERA, gib, parse_bytes_per_s, parse_flop_per_s, parse_seconds, seconds, si


@pytest.mark.parametrize(("text", "value"), [("500ms", 0.5), ("2 s", 2.0), ("50us", 5e-5), ("1.5min", 90.0)])
def test_parse_seconds(text, value):
    assert parse_seconds(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["500", "fast", "5 parsecs"])
def test_parse_seconds_needs_a_unit(text):
    with pytest.raises(WorkloadError):
        parse_seconds(text)


def test_bandwidth_is_decimal_unless_binary():
    assert parse_bytes_per_s("3.35 TB/s") == pytest.approx(3.35e12)
    assert parse_bytes_per_s("900GB/s") == pytest.approx(9e11)
    assert parse_bytes_per_s("1 GiB/s") == GIB
    assert parse_bytes_per_s("2") == 2 * TERA
    with pytest.raises(WorkloadError):
        parse_bytes_per_s("3 TFLOP/s")


def test_flops():
    assert parse_flop_per_s("989.4 TFLOP/s") == pytest.approx(989.4e12)
    assert parse_flop_per_s("800") == pytest.approx(8e14)
    assert parse_flop_per_s("1.2 PFLOPS") == pytest.approx(1.2e15)


def test_formatting():
    assert si(3.35e12, "B/s") == "3.35 TB/s"
    assert si(0, "B") == "0 B"
    assert seconds(0.0412) == "41.2 ms"
    assert seconds(2.5e-6) == "2.5 µs"
    assert gib(80 * GIB) == "80.00 GiB"


def test_a_value_that_rounds_up_takes_the_next_prefix():
    # issue 10: '1e+03 G' and '1e+03 µs' in tables; 999.5 G at 3 digits is 1 T
    assert si(9.995e14, "FLOP/s") == "1 PFLOP/s" and si(999.4e12, "FLOP/s") == "999 TFLOP/s"
    assert seconds(0.0009997) == "1 ms" and seconds(0.0009994) == "999 µs"


@pytest.mark.parametrize("text", ["0", "-1", "1e400", "0 GB/s", "1e19 B/s"])
def test_bandwidth_must_be_finite_positive_bounded(text):
    with pytest.raises(WorkloadError, match="must be a finite number > 0"):
        parse_bytes_per_s(text)


@pytest.mark.parametrize("text", ["0", "-5 TFLOP/s", "1e400"])
def test_compute_rate_must_be_finite_positive(text):
    with pytest.raises(WorkloadError, match="must be a finite number > 0"):
        parse_flop_per_s(text)


def test_duration_must_be_positive():
    with pytest.raises(WorkloadError, match=r"duration '0 ms': must be a finite number > 0"):
        parse_seconds("0 ms")
