"""Builder: the rows both readers fill, its skip reasons and id rules (events as dicts, the ijson reader's form)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from rooftop.ingest.builder import Builder, _int
from rooftop.ingest.mapping import load
from rooftop.ingest.tables import KERNEL, MEMCPY, Trace
from rooftop.torchops.cost import costable
from tests.ingest.conftest import cpu_op, kernel, launch


def build(events: list[Any]) -> Trace:
    b = Builder(load("kineto_v1"), costable)
    for ev in events:
        b.add(ev)
    return b.finish("t.json", {})


def test_rows_go_to_their_tables() -> None:
    copy = {**kernel(20, 4, 3), "cat": "gpu_memcpy", "name": "Memcpy HtoD", "args": {"bytes": 4096, "correlation": 3}}
    trace = build([launch(0, 2, 1), kernel(5, 10, 1), copy, cpu_op(-1, 30, "aten::relu", ext=9),
                   cpu_op(-5, 100, "ProfilerStep#3")])  # fmt: skip
    assert trace.events == 5 and trace.names == ["cudaLaunchKernel", "k", "Memcpy HtoD", "aten::relu"]
    assert trace.gpu.kind.tolist() == [KERNEL, MEMCPY] and trace.gpu.correlation.tolist() == [1, 3]
    assert np.isnan(trace.gpu.bytes[0]) and trace.gpu.bytes[1] == 4096  # kernels carry no payload
    assert trace.launches.correlation.tolist() == [1] and trace.cpu.external_id.tolist() == [9]
    assert trace.steps == [("ProfilerStep#3", -5.0, 100.0)]  # a step is not a CPU op row
    assert trace.launches.thread.tolist() == trace.cpu.thread.tolist() == [0]  # same (pid 1, tid 1)


def test_skip_reasons() -> None:
    events = [
        kernel(0, 1, 1),
        {**kernel(0, 1, 1), "ts": "12"},  # a string timestamp
        {**kernel(0, 1, 1), "dur": None},
        kernel(0, -1, 1),  # negative duration
        {**launch(0, 1, 1), "ts": 2**70},  # beyond int64: not a time
        {**kernel(0, 1, 1), "ts": True},  # a boolean is not a number
        [1, 2],
        "kernel",
        {**kernel(0, 1, 1), "ph": "B"},  # not a complete event: ignored, not counted
        {"cat": "ac2g", "ph": "s"},  # not a kept category: ignored
    ]
    trace = build(events)
    assert trace.events == 10 and int(np.sum(trace.gpu.kind == KERNEL)) == 1
    assert trace.skipped == {
        "kernel event without numeric ts/dur": 3,
        "kernel event with negative duration": 1,
        "cuda_runtime event with an out-of-range ts/dur": 1,
        "event is not a JSON object": 2,
    }


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (7, 7),
        (7.0, 7),
        (7.5, -1),
        ("7", -1),
        (None, -1),
        (True, -1),
        (2**63, -1),
        (-(2**63), -(2**63)),
        (1e30, -1),
        (math.inf, -1),
        (math.nan, -1),
    ],
)
def test_ids(value: Any, expected: int) -> None:
    assert _int(value) == expected


def test_huge_ids_do_not_break_the_columns() -> None:
    trace = build([kernel(0, 1, 2**70), kernel(1, 1, 1e30), {**kernel(2, 1, 1), "args": {"stream": 2**64}}])
    assert trace.gpu.correlation.tolist() == [-1, -1, -1] and trace.gpu.stream.tolist() == [7, 7, -1]


def test_shapes_are_interned_for_the_costable_ops() -> None:
    dims = {"Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}
    trace = build([cpu_op(0, 1, "aten::mm", **dims), cpu_op(2, 1, "aten::mm", **dims), cpu_op(4, 1, "aten::view", **dims),
                   cpu_op(6, 1, "aten::mm", **{"Input Dims": None}), cpu_op(8, 1, "aten::relu", **dims),
                   cpu_op(10, 1, "aten::index", **dims), cpu_op(12, 1, "fbgemm::lookup", **dims),
                   kernel(0, 1, 1)])  # fmt: skip
    # relu's shapes are mm's: interned once. None for a view (moves nothing), a partial-indexing op or
    # a custom op (what they read is not their shapes), nor for null dims.
    assert trace.cpu.shape_id.tolist() == [0, 0, -1, -1, 0, -1, -1]
    assert trace.cpu.shapes == [([[2, 3], [3, 4]], ["float", "float"])]


def test_names_and_threads_of_odd_types() -> None:
    trace = build([{**launch(0, 1, 1), "name": 5, "pid": None}, {**launch(1, 1, 2), "pid": "None"}, kernel(0, 1, 1)])
    assert trace.names[:2] == ["<unnamed>", "cudaLaunchKernel"]
    assert trace.launches.thread.tolist() == [0, 0]  # a missing pid is keyed as repr(None), like the string 'None'
