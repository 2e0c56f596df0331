"""The bounded JSON/TOML readers: depth, string size and file size refused before decoding."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import msgspec
import pytest

from rooftop.core import safejson
from rooftop.core.schema import convert
from rooftop.errors import CatalogError, SpecError


def test_json_nested_past_the_bound_is_one_error_not_recursion() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(SpecError, match=r"^x.json: nested deeper than 64 levels$"):
        safejson.loads_json(deep, "x.json", SpecError)


def test_json_depth_counts_objects_and_arrays_and_ignores_brackets_in_strings() -> None:
    # 64 levels exactly is allowed: 32 objects holding 32 arrays
    ok = '{"a":' * 32 + "[" * 32 + '"[[[[{{{{"' + "]" * 32 + "}" * 32
    assert safejson.loads_json(ok, "x", SpecError) is not None
    with pytest.raises(SpecError, match="nested deeper than 64"):
        safejson.loads_json("[" + ok + "]", "x", SpecError)


def test_json_long_string_refused_before_decoding() -> None:
    text = '{"name": "' + "a" * 1001 + '"}'
    with pytest.raises(SpecError, match=r"^x: a string of 1,001 characters \(at most 1,000 allowed\)$"):
        safejson.loads_json(text, "x", SpecError, max_string=1000)
    assert safejson.loads_json(text, "x", SpecError, max_string=1001) == {"name": "a" * 1001}


def test_json_constants_decode_as_floats_for_the_schema_to_name() -> None:
    # NaN, Infinity and 1e400 (out of float range -> inf) reach the schema step, which names the field
    data = safejson.loads_json('{"a": NaN, "b": Infinity, "c": 1e400}', "x", SpecError)
    assert data["a"] != data["a"] and data["b"] == float("inf") == data["c"]


def test_json_malformed_and_not_utf8() -> None:
    with pytest.raises(SpecError, match=r"^x: not valid JSON \(line 1: Expecting value\)$"):
        safejson.loads_json("[", "x", SpecError)
    with pytest.raises(SpecError, match=r"^x: not UTF-8 text \(byte 1\)$"):
        safejson.loads_json(b'"\xff"', "x", SpecError)


def test_read_bounded_refuses_large_missing_and_folders(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 11)
    with pytest.raises(SpecError, match=r"larger than 10 bytes"):
        safejson.read_json(big, SpecError, max_bytes=10)
    with pytest.raises(SpecError, match=r"cannot read: no such file$"):
        safejson.read_json(tmp_path / "nope.json", SpecError)
    with pytest.raises(SpecError, match=r"is a folder, not a file$"):
        safejson.read_json(tmp_path, SpecError)


def test_toml_nested_arrays_past_the_bound() -> None:
    deep = "a = " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(CatalogError, match=r"^c.toml: nested deeper than 64 levels$"):
        safejson.loads_toml(deep, "c.toml", CatalogError)


def test_toml_brackets_in_strings_and_comments_do_not_count() -> None:
    text = "# [[[[[[\n[t]\ns = \"[[[[\"\nl = '{{{{'\nm = '''\n[[[[\n'''\nv = [[1], [2]]\n"
    assert safejson.loads_toml(text, "c", CatalogError, max_depth=3)["t"]["v"] == [[1], [2]]


def test_toml_malformed_is_one_line() -> None:
    with pytest.raises(CatalogError, match=r"^c: not valid TOML \(.*\)$"):
        safejson.loads_toml("a = = 1", "c", CatalogError)


def test_schema_messages_in_plain_words() -> None:
    class S(msgspec.Struct):
        name: Annotated[str, msgspec.Meta(max_length=3)] = ""
        tags: Annotated[list[int], msgspec.Meta(min_length=2)] = msgspec.field(default_factory=lambda: [0, 0])

    with pytest.raises(SpecError, match=r"^f: name = 'abcd': too long \(at most 3 characters\)$"):
        convert({"name": "abcd"}, S, "f", SpecError)
    with pytest.raises(SpecError, match=r"^f: tags = \[1\]: too short \(at least 2 items\)$"):
        convert({"tags": [1]}, S, "f", SpecError)
    with pytest.raises(SpecError, match=r"^f: tags\[1\] = 'x': not an integer$"):
        convert({"tags": [1, "x"]}, S, "f", SpecError)
