"""columns.add_chunk (vectorised) against Builder.add_structs and Builder.add (event by event)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rooftop.ingest import columns
from rooftop.ingest.builder import Builder
from rooftop.ingest.fastjson import kit
from rooftop.ingest.mapping import load
from rooftop.ingest.tables import Trace
from rooftop.torchops.cost import costable
from tests.ingest.conftest import assert_same_trace, cpu_op, kernel, launch


def _builder() -> Builder:
    return Builder(load("kineto_v1"), costable)


def three_ways(chunks: list[list[Any]]) -> tuple[Trace, Trace, Trace]:
    """The same chunks through add_chunk, add_structs and add (dicts)."""
    k = kit()
    a, b, c = _builder(), _builder(), _builder()
    for events in chunks:
        decoded = k.decoder.decode(json.dumps(events).encode())
        columns.add_chunk(a, decoded, k)
        b.add_structs(k.decoder.decode(json.dumps(events).encode()), k)
        for ev in json.loads(json.dumps(events)):
            c.add(ev)
    return a.finish("t", {}), b.finish("t", {}), c.finish("t", {})


def _check(chunks: list[list[Any]]) -> Trace:
    a, b, c = three_ways(chunks)
    assert_same_trace(a, c)
    assert_same_trace(b, c)
    return a


def test_plain_chunks() -> None:
    dims = {"Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}
    nccl = {"Collective name": "allreduce", "In msg nelems": 8, "dtype": "Float"}
    chunk1 = [
        launch(0, 2, 1),
        kernel(5, 10, 1),
        cpu_op(-1, 30, "aten::mm", ext=4, **dims),
        cpu_op(-9, 90, "ProfilerStep#1"),
    ]
    chunk2 = [kernel(50, 5, 2, name="ncclKernel_AllReduce", **nccl), launch(40, 1, 2, tid=2), cpu_op(39, 3, "aten::mm", tid=2, **dims),
              {"ph": "f", "cat": "ac2g", "ts": 1}, {"ph": "M", "name": "thread_name", "args": {"name": "x"}}]  # fmt: skip
    trace = _check([chunk1, chunk2])
    assert trace.steps == [("ProfilerStep#1", -9.0, 90.0)] and trace.comm_args[1]["collective"] == "allreduce"
    assert trace.cpu.shape_id.tolist() == [0, 0] and trace.launches.thread.tolist() == [0, 1]


# Events that make a chunk "not plain" (add_chunk hands it to add_structs) or exercise defaults.
ODD = [
    {**kernel(0, 1, 1), "ts": None},
    {**kernel(0, 1, 1), "dur": None},
    kernel(0, -2, 1),
    {k: v for k, v in kernel(0, 1, 1).items() if k != "name"},
    {k: v for k, v in kernel(0, 1, 1).items() if k != "args"},
    {**kernel(0, 1, 1), "args": None},
    kernel(0, 1, 2**63 + 1),
    kernel(0, 1, 3.0),
    kernel(0, 1, "0x3"),
    {**launch(0, 1, 4), "pid": None, "tid": "main"},
    {**kernel(0, 1, 1), "ts": 2**64 + 5},
    {**kernel(0, 1, 1), "ph": "i"},
    cpu_op(0, 1, "aten::mm", **{"Input Dims": None}),
    cpu_op(0, 1, "aten::mm", **{"Input Dims": [[1]], "Input type": None}),
    {**kernel(0, 1, 1), "args": {"correlation": 1, "stream": None, "device": 2.5, "bytes": "many"}},
]
PLAIN = [kernel(3, 2, 5), launch(1, 1, 5), cpu_op(0, 9, "aten::linear"), cpu_op(0, 10, "ProfilerStep#9")]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(ODD + PLAIN), max_size=8), min_size=1, max_size=4))
def test_any_mix_matches_event_by_event(chunks: list[list[Any]]) -> None:
    _check(chunks)


_SCALAR = st.one_of(
    st.integers(-3, 2**48 + 1),
    st.sampled_from([2**48, 2**63, 10**30]),  # the bound, and beyond int64
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(max_size=3),
    st.none(),
)
_VALUE = st.recursive(_SCALAR, lambda inner: st.lists(inner, max_size=3), max_leaves=8)
_SIZE = st.one_of(st.integers(0, 9), st.sampled_from([-1, 2**48, 2**48 + 1]))  # and just out of bounds
_SIZES = st.lists(st.one_of(_SIZE, st.lists(st.one_of(_SIZE, st.lists(_SIZE, max_size=2)), max_size=3)), max_size=3)
_NAMES = st.one_of(
    st.none(), st.lists(st.one_of(st.sampled_from(["float", "c10::BFloat16", ""]), st.none()), max_size=3)
)


@settings(max_examples=150, deadline=None)
@given(st.one_of(_SIZES, _VALUE), st.one_of(_NAMES, _VALUE), st.one_of(st.lists(_SCALAR, max_size=3), _VALUE))
def test_shapes_checked_while_decoding_match_the_python_check(dims: Any, types: Any, concrete: Any) -> None:
    # add_chunk decodes Input Dims/Input type/Concrete Inputs with typed decoders (fastjson._shape_decoders)
    # and judges anything they refuse as before: ids, shapes and malformed counts as event by event
    args = {"Input Dims": dims, "Input type": types, "Concrete Inputs": concrete}
    _check([[cpu_op(0, 1, "aten::mm", **args), cpu_op(2, 1, "aten::mm", **args), cpu_op(4, 1, "aten::addmm", **args)]])
