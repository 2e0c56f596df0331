"""CLI numbers from issue 11: refused in one line with exit 2 before any work.

Before: --bandwidth 0 was a ZeroDivisionError traceback; --peak-tflops 0|-1 printed null or
negative MFU; --memory-utilization nan passed click's range check; sweep -b 2**63 printed a
negative batch; --threads 100000 was a segfault (exit 139) in profile and roofs; -b 0-64 hung.
"""

from __future__ import annotations

import click
import pytest

from rooftop.cli.options import parse_int_list
from rooftop.cli.params import DAY_S, Positive, Seconds, usable_cores
from rooftop.errors import WorkloadError
from tests.conftest import run_main as run


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("analyze", "--bandwidth", "0"), "bandwidth '0': must be a finite number > 0 and at most 1e+18"),
        (("analyze", "--bandwidth", "1e400 TB/s"), "bandwidth '1e400 TB/s': must be a finite number > 0"),
        (("analyze", "--peak-tflops", "0"), "compute rate '0': must be a finite number > 0"),
        (("analyze", "--peak-tflops", "-1"), "compute rate '-1': must be a finite number > 0"),
        (("analyze", "--memory-utilization", "nan"), "'nan' is not a finite number."),
        (("sweep", "--memory-utilization", "inf"), "inf is not in the range 0.01<=x<=1.0"),
        (("sweep", "-b", "9223372036854775808"), "9223372036854775808 is above the bound 16,777,216"),
        (("analyze", "-c", "1-99999999999"), "99999999999 is above the bound 16,777,216"),
        (("analyze", "--tp", "100000"), "100000 is not in the range 1<=x<=1024"),
        (("roofs", "measure", "--threads", "100000"), f"100000 is not in 1..{usable_cores()}"),
        (("profile", "--threads", "100000"), f"100000 is not in 1..{usable_cores()}"),
        (("profile", "--threads", "0"), f"0 is not in 1..{usable_cores()}"),
    ],
)
def test_bad_numbers_are_one_line_exit_2(capsys, argv, message):
    code, err = run(capsys, *argv)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_range_from_zero_ends():
    # '0-64' doubled 0 forever (a hang); now 0 is followed by 1
    assert parse_int_list("0-8", "batch") == [0, 1, 2, 4, 8]
    with pytest.raises(WorkloadError, match=r"--batch: 65 is above the bound 64"):
        parse_int_list("1,65", "batch", high=64)


def test_rates_with_units_still_parse(capsys):
    code, err = run(capsys, "analyze", "-m", "llama-3.2-1b", "--peak-tflops", "800 TFLOP/s", "--bandwidth", "3 TB/s")
    assert code == 0 and "error" not in err, err  # (a warning of another test may land here)


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "0", "-1", "86401", "abc"])
def test_seconds_refuse_nan_inf_zero_negative_and_too_long(text):
    # click.FloatRange would let "nan" through (every comparison with NaN is false)
    with pytest.raises(click.BadParameter):
        Seconds().convert(text, None, None)


def test_seconds_and_positive_accept_finite_values_in_range():
    assert Seconds().convert("0.5", None, None) == 0.5
    assert Seconds(30 * DAY_S).convert("2592000", None, None) == 30 * 86400.0  # 30 days, the --since bound
    assert Positive(1e6).convert(1e6, None, None) == 1e6
