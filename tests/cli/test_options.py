import pytest

from rooftop.cli.options import parse_int_list
from rooftop.errors import WorkloadError


def test_lists_and_ranges():
    assert parse_int_list("1,8,64", "batch") == [1, 8, 64]
    assert parse_int_list("1-64", "batch") == [1, 2, 4, 8, 16, 32, 64]
    assert parse_int_list("3-20", "batch") == [3, 6, 12, 20]  # doubling, end included
    assert parse_int_list("2k,32k", "context") == [2048, 32768]
    assert parse_int_list("8,1,8", "batch") == [1, 8]


@pytest.mark.parametrize(
    ("text", "match"), [("64-1", "inverted"), ("", "empty"), ("a", "not an integer"), ("-3", "negative")]
)
def test_bad_lists(text, match):
    with pytest.raises(WorkloadError, match=match):
        parse_int_list(text, "batch")
