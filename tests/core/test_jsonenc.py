"""core/jsonenc.py: the one JSON encoder (msgspec: NaN/inf → null) with json.dumps's layout."""

from __future__ import annotations

import json
from dataclasses import dataclass

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rooftop.core.enums import Bound, Severity
from rooftop.core.jsonenc import _text, _walk, dumps, to_plain


@dataclass(frozen=True)
class Pair:
    share: float
    bound: Bound


def test_non_finite_numbers_are_null_everywhere() -> None:
    doc = {"a": float("nan"), "b": [float("inf"), -float("inf")], "c": (np.float64("nan"), np.float32(1.5))}
    # a field that held one says why beside it (issue 11: "null plus a reason"); list items cannot
    assert to_plain(doc) == {"a": None, "b": [None, None], "c": [None, 1.5], "null_reasons": {"a": "nan"}}
    assert dumps(doc) == '{"a": null, "b": [null, null], "c": [null, 1.5], "null_reasons": {"a": "nan"}}'
    nested = to_plain({"totals": {"mfu": float("nan"), "tokens_per_s": float("inf"), "mbu": -float("inf")}})
    assert nested == {
        "totals": {"mfu": None, "tokens_per_s": None, "mbu": None,
                   "null_reasons": {"mfu": "nan", "tokens_per_s": "+inf", "mbu": "-inf"}}
    }  # fmt: skip
    assert to_plain({"x": None, "y": 2.0}) == {"x": None, "y": 2.0}  # a plain None needs no reason


def test_dataclasses_enums_and_numpy_become_plain_json() -> None:
    doc = {"pair": Pair(0.25, Bound.MEMORY_KV), "severity": Severity.WARN, "n": np.int64(3), "arr": np.arange(3)}
    assert to_plain(doc) == {
        "pair": {"share": 0.25, "bound": "memory:kv"},
        "severity": "warn",
        "n": 3,
        "arr": [0, 1, 2],
    }


@pytest.mark.parametrize(
    "doc",
    [
        {"x": 1e16, "y": 1.5e-07, "z": 123456789012.0, "w": 0.1},  # exponent spelling: 1e+16, 1.5e-07
        {"title": "12 × 4 — µs", "empty": {}, "none": [], "flag": True},  # non-ASCII escaped as \\uXXXX
        [1, [2, [3, {"k": None}]]],
    ],
)
def test_the_layout_is_json_dumps_byte_for_byte(doc: object) -> None:
    # artifacts written before this encoder (json.dumps(indent=1)) keep their bytes
    assert dumps(doc, indent=1) == json.dumps(doc, indent=1, allow_nan=False)
    assert dumps(doc) == json.dumps(doc, allow_nan=False)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSON, st.integers(0, 4))
def test_any_document_is_laid_out_as_json_dumps(doc: object, indent: int) -> None:
    # the indented text comes from msgspec's formatter over json.dumps' compact text (in C)
    assert dumps(doc, indent=indent) == json.dumps(doc, indent=indent)


ANY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.sampled_from(["NaN", "-Infinity"]),
    lambda inner: st.lists(inner) | st.tuples(inner, inner) | st.dictionaries(st.text(), inner),
    max_leaves=30,
)


def _no_constant(name: str) -> object:
    raise AssertionError(f"{name} written as a JSON literal")


@settings(max_examples=300, deadline=None)
@given(ANY)
def test_to_plain_is_what_dumps_writes(doc: object) -> None:
    # to_plain skips the text (watch calls it per window); a NaN or inf is null either way, and a
    # string that reads "NaN" stays a string
    assert to_plain(doc) == json.loads(dumps(doc), parse_constant=_no_constant)


@settings(max_examples=300, deadline=None)
@given(ANY)
def test_only_the_branches_with_a_non_finite_number_are_walked(doc: object) -> None:
    # writing the clean branches in C gives the bytes of the walk over the whole document
    raw = msgspec.to_builtins(doc, str_keys=True)
    assert _text(raw) == json.dumps(_walk(raw), allow_nan=False)


def test_a_nan_deep_in_a_large_document_gets_its_reason_where_it_is() -> None:
    doc = {"hardware": {"name": "x", "capacity_bytes": float("nan")}, "results": [{"ops": list(range(3))}] * 2}
    assert dumps(doc) == (
        '{"hardware": {"name": "x", "capacity_bytes": null, "null_reasons": {"capacity_bytes": "nan"}}, '
        '"results": [{"ops": [0, 1, 2]}, {"ops": [0, 1, 2]}]}'
    )


class Version(str):
    """Like torch.__version__ (TorchVersion): a str subclass."""


class Count(int):
    pass


def test_subclasses_of_str_and_int_are_written_as_their_base() -> None:
    assert dumps({"torch": Version("2.13.0+cpu"), "n": Count(3)}) == '{"torch": "2.13.0+cpu", "n": 3}'


def test_keys_that_are_not_strings_are_written_as_text() -> None:
    assert dumps({1: "a", 2.5: "b", (1, 2): "c", None: "d"}) == '{"1": "a", "2.5": "b", "(1, 2)": "c", "None": "d"}'


def test_an_unknown_object_is_refused() -> None:
    with pytest.raises(NotImplementedError, match="cannot write object"):
        to_plain({"x": object()})
