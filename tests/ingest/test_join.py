"""Kernel -> launch -> CPU op joins."""

from __future__ import annotations

from pathlib import Path

from rooftop.ingest.join import join
from rooftop.ingest.kineto import read_trace
from tests.ingest.conftest import cpu_op, hta, kernel, launch, write_trace


def test_driver_launch_joins_triton_kernel() -> None:
    trace, joined = hta("triton_example.json.gz")
    row = int(joined.launch[0])
    assert trace.names[int(trace.launches.name_id[row])] == "cuLaunchKernel"


def test_partial_join_tolerated() -> None:
    _, joined = hta("a100x16_rank0.json.gz")
    trace, _ = hta("a100x16_rank0.json.gz")
    kernels = trace.gpu.kind == 0
    assert int((joined.launch[kernels] >= 0).sum()) == 5375  # README: 5,375 of 6,080


def test_innermost_enclosing_op(tmp_path: Path) -> None:
    events = [
        cpu_op(0, 100, "aten::linear"),
        cpu_op(10, 50, "aten::addmm"),  # innermost around the launch at 20
        cpu_op(70, 20, "aten::relu"),
        launch(20, 5, corr=1),
        launch(75, 5, corr=2),
        launch(95, 2, corr=3),  # only aten::linear holds t=95
        kernel(30, 10, corr=1),
        kernel(90, 3, corr=2),
        kernel(100, 3, corr=3),
        kernel(200, 3, corr=4),  # no launch at all
    ]
    trace = read_trace(write_trace(tmp_path / "t.json", events))
    joined = join(trace)
    ops = [trace.names[int(trace.cpu.name_id[o])] if o >= 0 else None for o in joined.op.tolist()]
    assert ops == ["aten::addmm", "aten::relu", "aten::linear", None]
    assert joined.launch.tolist()[3] == -1


def test_external_id_join_must_hold_the_launch(tmp_path: Path) -> None:
    # ext id 5 names aten::mm, but that op is on another thread: fall back to the enclosing op
    events = [cpu_op(0, 10, "aten::mm", tid=2, ext=5), cpu_op(0, 10, "aten::bmm", tid=1),
              launch(2, 1, corr=1, ext=5), kernel(5, 1, corr=1)]  # fmt: skip
    trace = read_trace(write_trace(tmp_path / "t.json", events))
    op = int(join(trace).op[0])
    assert trace.names[int(trace.cpu.name_id[op])] == "aten::bmm"
