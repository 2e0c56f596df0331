"""The fast reader (msgspec, a block of events at a time) against the ijson reader.

The fast reader must give the Trace the ijson reader gives, or leave the file to it: same tables,
same skip reasons, same one-line errors. The chunked reader is forced on small inputs by shrinking
its block size, so cuts land inside strings, nested arrays and the header.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rooftop.errors import TraceFormatError
from rooftop.ingest import fastjson, kineto
from rooftop.ingest.kineto import read_trace
from tests.conftest import data_path
from tests.ingest.conftest import assert_same_trace, cpu_op, kernel, launch
from tests.ingest.test_fuzz import event

FIXTURES = ["a100x16_rank0.json.gz", "a100x8_rank3_control.json.gz", "alexnet_a100.json.gz",
            "mi250_minitoy_rocm.json.gz", "nccl_data.json.gz", "sampled_rank-0.json.gz", "triton_example.json.gz"]  # fmt: skip


@pytest.fixture
def chunked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file through the msgspec reader, in 64-byte blocks."""
    monkeypatch.setattr(fastjson, "BLOCK_BYTES", 64)


def _no_fallback(*args: Any) -> Any:
    raise AssertionError("the fast reader handed the file to ijson")


def _outcome(path: Path, fast: bool) -> Any:
    try:
        return read_trace(path, fast=fast)
    except TraceFormatError as exc:
        assert "\n" not in str(exc)
        return str(exc)


def _same(path: Path) -> None:
    slow, fast = _outcome(path, False), _outcome(path, True)
    if isinstance(slow, str) and "integer overflow" in slow:
        return  # yajl (ijson) rejects integers beyond int64; the fast readers read them (ids -> -1, times skipped)
    if isinstance(slow, str) or isinstance(fast, str):
        assert fast == slow
    else:
        assert_same_trace(fast, slow)


@pytest.mark.parametrize("name", FIXTURES)
def test_fixtures_read_the_same(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = data_path("hta-traces", name)
    slow = read_trace(path, fast=False)
    monkeypatch.setattr(kineto, "_read_slow", _no_fallback)  # every fixture is read by a fast reader
    assert_same_trace(read_trace(path), slow)  # small ones through json, large ones through msgspec chunks


@pytest.mark.parametrize("name", ["sampled_rank-0.json.gz", "mi250_minitoy_rocm.json.gz", "triton_example.json.gz"])
def test_small_fixtures_through_tiny_chunks(name: str, chunked: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastjson, "BLOCK_BYTES", 4096)  # 64 B blocks on 1.7 MB would take a while
    path = data_path("hta-traces", name)
    calls = []
    slow = read_trace(path, fast=False)
    monkeypatch.setattr(kineto, "_read_slow", _no_fallback)
    assert_same_trace(read_trace(path, progress=calls.append), slow)
    assert calls and calls[-1] == slow.events  # progress once per chunk, ends at the count


TRICKY = [
    kernel(0, 5, 1, name='k"}, {"ph": "X", "cat": "kernel"}, ] [ {'),  # braces, commas, brackets inside a string
    launch(-3, 2, 1, name="cudaLaunchKernel"),
    cpu_op(
        -10,
        20,
        "aten::mm",
        **{"Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"], "Nested": [{"a": [1, {"b": "},{"}]}]},
    ),
    kernel(
        30,
        5,
        2,
        name="ncclKernel_AllReduce",
        **{"Collective name": "allreduce", "In msg nelems": 4096, "dtype": "Float"},
    ),
    cpu_op(-20, 100, "ProfilerStep#7"),
    {"ph": "f", "cat": "ac2g", "id": 1, "ts": 3, "bp": "e"},
    {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "traceEvents"}},
]


@pytest.mark.parametrize("indent", [None, 1])
@pytest.mark.parametrize("gz", [False, True])
def test_cuts_inside_strings_and_nested_values(tmp_path: Path, chunked: None, indent: int | None, gz: bool) -> None:
    header = {"schemaVersion": 1, "note": '"traceEvents": [ {"x": 1}, ', "deviceProperties": [{"name": "A]100"}]}
    text = json.dumps({**header, "traceEvents": TRICKY * 5, "traceName": "a [b] c", "tail": [[1], {"x": "]"}]},
                      indent=indent)  # fmt: skip
    path = tmp_path / "t.json"
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    monkeypatch = pytest.MonkeyPatch()
    with monkeypatch.context() as m:
        m.setattr(kineto, "_read_slow", _no_fallback)  # the chunked reader must not give up
        fast = read_trace(path)
    slow = read_trace(path, fast=False)
    assert_same_trace(fast, slow)
    after = {"traceName": "a [b] c", "tail": [[1], {"x": "]"}]}  # keys after the events, brackets inside
    assert fast.metadata == {**header, **after} and len(fast.steps) == 5 and fast.comm_args  # steps, NCCL args kept


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("fast", [True, False])
def test_keys_after_the_events_are_read(tmp_path: Path, gz: bool, fast: bool) -> None:
    """A trace re-saved with traceEvents first (TraceLens' H100 traces put deviceProperties after it) keeps its GPU and rank.

    The header's own key wins over a later one of the same name.
    """
    props = [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "maxThreadsDim": [1024, 1024, 64]}]
    text = json.dumps({"metadata": {"note": "x"}, "traceEvents": TRICKY * 3, "schemaVersion": 1,
                       "deviceProperties": props, "distributedInfo": {"rank": 3, "world_size": 8},
                       "metadata ": 2, "traceName": "/tmp/file.json"})  # fmt: skip
    path = tmp_path / "t.json"
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    trace = read_trace(path, fast=fast)
    assert (trace.device_name, trace.rank) == ("NVIDIA H100 80GB HBM3", 3)
    assert trace.metadata["metadata"] == {"note": "x"} and trace.metadata["traceName"] == "/tmp/file.json"
    assert fastjson.keys_after_events(b'1]}, {"a": [2]}], "k": [3], "n": "]"}') == {"k": [3], "n": "]"}


def test_bare_array_trace(tmp_path: Path, chunked: None) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(TRICKY * 3))
    _same(path)
    assert read_trace(path).events == 21


@pytest.mark.parametrize(
    "text",
    [
        '{"traceEvents": [' + json.dumps(kernel(0, 1, 1)) + ",]}",  # a comma before the bracket
        '{"traceEvents": [' + json.dumps(kernel(0, 1, 1)) + "]}garbage",
        '{"traceEvents": ['
        + json.dumps(kernel(0, 1, 1))
        + "], "
        + '"traceEvents": ['
        + json.dumps(kernel(5, 1, 2))
        + "]}",
        '{"traceEvents": {"a": 1}}',
        '{"traceEvents": [' + json.dumps(kernel(0, 1, 1)) + ', 7, "x", null]}',  # events that are not objects
        '{"traceEvents": [' + json.dumps({**kernel(0, 1, 1), "args": [1]}) + "]}",  # args not an object
        '{"traceEvents": [' + json.dumps({**kernel(0, 1, 1), "ts": "1"}) + "]}",  # ts a string
        '{"traceEvents": [' + json.dumps({**kernel(0, 1, 1), "ts": 1e400}) + "]}",  # out of range
        '{"traceEvents": [' + json.dumps(kernel(0, 1, 2**70)) + "]}",  # correlation beyond int64
        '{"traceEvents": [' + json.dumps({**kernel(0, 1, 1), "ts": 2**64 + 1}) + "]}",
        '{"traceEvents": [' + json.dumps({**kernel(0, 1, 1), "dur": float("nan")}) + "]}",  # NaN: not JSON
        '{"traceEvents": [' + json.dumps(kernel(0, 1, 1)) + ", " + json.dumps(kernel(0, -1, 1)) + "]}",
        '{"a": "\\ud800", "traceEvents": [' + json.dumps(kernel(0, 1, 1)) + "]}",  # a lone surrogate
        '\ufeff{"traceEvents": []}',
        "[]",
        "{}",
    ],
)
@pytest.mark.parametrize("force_chunks", [False, True])
def test_odd_files_read_like_ijson(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str,
                                   force_chunks: bool) -> None:  # fmt: skip
    if force_chunks:
        monkeypatch.setattr(fastjson, "BLOCK_BYTES", 32)
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    _same(path)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(event(), max_size=30), st.booleans(), st.sampled_from([None, 0, 2]), st.integers(16, 300),
       st.booleans())  # fmt: skip
def test_fuzzed_events_read_like_ijson(events: list[Any], gz: bool, indent: int | None, block: int,
                                       force_chunks: bool) -> None:  # fmt: skip
    import tempfile

    text = json.dumps({"schemaVersion": 1, "traceEvents": [kernel(0, 1, 1), *events]}, indent=indent).encode()
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch().context() as m:
        path = Path(tmp) / "t.json"
        path.write_bytes(gzip.compress(text) if gz else text)
        if force_chunks:
            m.setattr(fastjson, "BLOCK_BYTES", block)
        _same(path)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 6000), st.booleans())
def test_truncated_files_read_like_ijson(cut: int, gz: bool) -> None:
    import tempfile

    text = json.dumps({"traceEvents": TRICKY * 20}).encode()
    data = gzip.compress(text)[:cut] if gz else text[:cut]
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch().context() as m:
        path = Path(tmp) / "t.json"
        path.write_bytes(data)
        m.setattr(fastjson, "BLOCK_BYTES", 256)
        _same(path)


def test_a_gzip_of_two_members_reads_like_ijson(tmp_path: Path) -> None:
    events = [kernel(i, 1, i) for i in range(400)]
    data = gzip.compress(json.dumps({"traceEvents": events}).encode()) + gzip.compress(b" ")  # `cat a.gz b.gz`
    path = tmp_path / "t.json.gz"
    path.write_bytes(data)
    trace = read_trace(path)
    assert len(trace.gpu.ts_us) == 400
    assert_same_trace(trace, read_trace(path, fast=False))
