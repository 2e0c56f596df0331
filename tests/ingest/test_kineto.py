"""The streaming Kineto reader: counts, metadata, formats, skipped events."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rooftop.errors import TraceFormatError
from rooftop.ingest.join import join
from rooftop.ingest.kineto import KERNEL, MEMCPY, MEMSET, read_trace
from rooftop.ingest.trace_points import points
from rooftop.torchops.cost import costable
from tests.ingest.conftest import cpu_op, hta, kernel, launch, write_trace

COUNTS = {  # README: events, kernels, memcpy, memset
    "sampled_rank-0.json.gz": (4855, 1154, 40, 10),
    "nccl_data.json.gz": (40573, 2700, 960, 114),
    "a100x16_rank0.json.gz": (108936, 6080, 1390, 277),
    "a100x8_rank3_control.json.gz": (109123, 8568, 228, 654),
    "alexnet_a100.json.gz": (1408, 79, 16, 3),
    "mi250_minitoy_rocm.json.gz": (None, 14, 2, 0),
}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_counts(name: str) -> None:
    trace, _ = hta(name)
    events, kernels, memcpy, memset = COUNTS[name]
    if events is not None:
        assert trace.events == events
    kinds = trace.gpu.kind
    assert (int(np.sum(kinds == KERNEL)), int(np.sum(kinds == MEMCPY)), int(np.sum(kinds == MEMSET))) == (
        kernels, memcpy, memset)  # fmt: skip
    assert trace.skipped == {}


def test_metadata() -> None:
    trace, _ = hta("a100x8_rank3_control.json.gz")
    assert trace.rank == 3 and trace.device_name == "NVIDIA A100-PG509-200"
    assert int(np.unique(trace.gpu.device[trace.gpu.kind == KERNEL])[0]) == 3  # device 3
    trace, _ = hta("mi250_minitoy_rocm.json.gz")
    assert trace.device_name == "AMD Radeon Graphics" and trace.rank is None
    assert int(trace.gpu.device[0]) == 2  # ROCm device index 2
    trace, _ = hta("sampled_rank-0.json.gz")
    assert trace.device_name == "" and trace.rank == 0  # no deviceProperties


def test_float_timestamps_keep_ns_fractions() -> None:
    trace, _ = hta("nccl_data.json.gz")
    frac = trace.gpu.ts_us - np.floor(trace.gpu.ts_us)
    assert np.any(frac > 0)


def test_steps_and_shapes() -> None:
    trace, _ = hta("sampled_rank-0.json.gz")
    assert [s[0] for s in trace.steps] == ["ProfilerStep#551", "ProfilerStep#552"]
    rows = (trace.cpu.shape_id >= 0).nonzero()[0]
    names = {trace.names[int(trace.cpu.name_id[r])] for r in rows}
    assert {"aten::mm", "aten::cat", "aten::gather"} <= names and all(map(costable, names))
    assert len(trace.cpu.shapes) < rows.size  # interned: ops repeat shapes


def test_bare_array_and_plain_json(tmp_path: Path) -> None:
    import json

    path = tmp_path / "t.json"
    path.write_text(json.dumps([kernel(10, 5, 1), launch(8, 1, 1)]))
    trace = read_trace(path)
    assert trace.gpu.ts_us.tolist() == [10.0] and trace.launches.correlation.tolist() == [1]


def test_skipped_events_are_counted(tmp_path: Path) -> None:
    events = [kernel(0, 5, 1), kernel("x", 5, 2), kernel(10, -3, 3), 7, {"cat": "kernel", "ph": "X"}]
    trace = read_trace(write_trace(tmp_path / "t.json.gz", events, gz=True))
    assert trace.gpu.ts_us.tolist() == [0.0]
    assert trace.skipped == {
        "kernel event without numeric ts/dur": 2,
        "kernel event with negative duration": 1,
        "event is not a JSON object": 1,
    }


def test_no_kernels_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(
        TraceFormatError, match=r"no GPU kernel events .* among 1 events \(cuda_runtime 1\); record with"
    ):
        read_trace(write_trace(tmp_path / "t.json", [launch(0, 1, 1)]))


def test_kernels_all_unusable_say_why(tmp_path: Path) -> None:
    events = [kernel(0, -1, 1), {**kernel(2, 1, 2), "ts": "soon"}, {**kernel(4, 1, 3), "cat": "Kernel", "dur": -3}]
    with pytest.raises(TraceFormatError, match=r"\(kernel 2, Kernel 1\); skipped: 1 kernel event with negative "
                       r"duration, 1 kernel event without numeric ts/dur, 1 Kernel event with negative duration$"):  # fmt: skip
        read_trace(write_trace(tmp_path / "t.json", events))


def test_no_kernels_says_what_the_file_holds_instead(tmp_path: Path) -> None:
    # HTA's tests/data/memory_analysis/memory_timeline.raw.gz: a bare array of [ts, action, bytes, category].
    timeline = tmp_path / "memory_timeline.raw"
    timeline.write_text("[[-1, 1, 37888, 7], [-1, 1, 512, 7], [-1, 1, 512, 7]]")
    with pytest.raises(TraceFormatError, match="not a Chrome trace: none of its 3 entries is an event object"):
        read_trace(timeline)
    # HTA's tests/data/cupti_profiler/...trace.json.gz: CUPTI range-profiler counters, no kernel timeline.
    ranged = {**kernel(0, 121_431, 1), "cat": "cuda_profiler_range", "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 38731776}}  # fmt: skip
    with pytest.raises(TraceFormatError, match="cuda_profiler_range 1.*CUPTI counters of replayed kernels"):
        read_trace(write_trace(tmp_path / "t.json", [launch(0, 1, 1), ranged]))


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("hello")
    with pytest.raises(TraceFormatError, match="not a JSON trace"):
        read_trace(path)


def test_an_intel_xpu_trace_joins_its_kernels_through_the_runtime_calls(tmp_path: Path) -> None:
    # The layout of Kineto's xpupti plugin (pytorch/kineto libkineto/src/plugin/xpupti/XpuptiActivityHandlers.cpp):
    # launches are cat "xpu_runtime" named by the oneAPI call, kernels carry "sycl queue"/"l0 queue" and no
    # "stream" (their tid is the queue), and every event the op's External id. Names, ids and times as a public
    # walk-through of a PyTorch 2.10.0a0 XPU trace (Aurora, PTI 0.17) quotes its three events.
    op = cpu_op(95786069998.433, 44332.734, "aten::addmm", ext=5,
                **{"Input Dims": [[64], [32, 128], [128, 64]], "Input type": ["float", "float", "float"]})  # fmt: skip
    call = {**launch(95786113648.115, 640.29, 4131, name="urEnqueueKernelLaunch", cat="xpu_runtime", ext=5)}
    gemm = {
        "ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 0, "ts": 95786114294.336, "dur": 8.96,
        "args": {"External id": 5, "kernel_id": 1, "l0 queue": "0x000055d08b8fc138", "sycl queue": 64,
                 "context": "0x000055d08918fc78", "correlation": 4131, "device": 0},
    }  # fmt: skip
    sync = launch(95786114400.0, 20.0, 4132, name="urQueueFinish", cat="xpu_runtime")
    trace = read_trace(write_trace(tmp_path / "xpu.json", [op, call, gemm, sync],
                                   deviceProperties=[{"name": "Intel(R) Data Center GPU Max 1550"}]))  # fmt: skip
    joined = join(trace)
    assert trace.vendor == "Intel" and trace.launches.ts_us.size == 2
    assert joined.launch.tolist() == [0] and trace.cpu.name_id[joined.op].tolist() == [trace.names.index("aten::addmm")]
    (point,) = points(trace, joined)
    assert point.flops == 2 * 32 * 128 * 64  # addmm (32x128) @ (128x64): 2·M·K·N, its FLOPs reach the XPU kernel
