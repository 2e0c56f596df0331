"""Points of a trace: aggregation per (op, kernel), FLOPs from shapes, copies with bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftop.core.points import Source
from rooftop.ingest.join import join
from rooftop.ingest.kineto import read_trace
from rooftop.ingest.trace_points import points
from tests.ingest.conftest import cpu_op, hta, kernel, launch, write_trace


def test_mi250_gemm_flops_from_shapes() -> None:
    trace, joined = hta("mi250_minitoy_rocm.json.gz")
    pts = {p.label.split(" → ")[0]: p for p in points(trace, joined) if p.flops}
    assert pts["aten::mm"].flops == 2 * 128 * 5 * 128  # [128,5] @ [5,128]
    assert pts["aten::addmm"].flops == 2 * 5 * 128 * 128  # [5,128] @ [128,128]
    assert pts["aten::mm"].bytes == (640 + 640 + 16384) * 4
    assert all(p.source is Source.TRACE and p.dtype == "fp32" for p in pts.values())


def test_times_add_up_to_kernel_sum() -> None:
    trace, joined = hta("sampled_rank-0.json.gz")
    pts = points(trace, joined)
    kernel_time = sum(p.time_s or 0 for p in pts if p.op != "memcpy")
    assert kernel_time == pytest.approx(606_519e-6)  # README: sum of kernel durations
    assert sum(p.count for p in pts) == 1154 + 40 + 10


def test_op_flops_shared_by_duration_among_gemm_kernels(tmp_path: Path) -> None:
    # aten::mm [64,32]@[32,16] = 65,536 FLOPs launches a GEMM (30 µs) and a split-K reduce (10 µs):
    # both are GEMM-class, so they get 3/4 and 1/4 of the FLOPs; the elementwise kernel gets none.
    events = [
        cpu_op(0, 100, "aten::mm", **{"Input Dims": [[64, 32], [32, 16]], "Input type": ["float", "float"]}),
        launch(1, 1, 1), launch(2, 1, 2), launch(3, 1, 3),
        kernel(10, 30, 1, name="ampere_sgemm_32x32"), kernel(40, 10, 2, name="cutlass_splitKreduce_gemm"),
        kernel(60, 5, 3, name="vectorized_elementwise_kernel"),
    ]  # fmt: skip
    trace = read_trace(write_trace(tmp_path / "t.json", events))
    pts = {p.provenance["kernel"]: p for p in points(trace, join(trace))}
    total = 2 * 64 * 32 * 16
    assert pts["ampere_sgemm_32x32"].flops == pytest.approx(total * 0.75)
    assert pts["cutlass_splitKreduce_gemm"].flops == pytest.approx(total * 0.25)
    assert pts["vectorized_elementwise_kernel"].flops == 0


def test_memcpy_points_carry_bytes() -> None:
    trace, joined = hta("a100x8_rank3_control.json.gz")
    h2d = [p for p in points(trace, joined) if p.label.startswith("Memcpy HtoD")]
    assert h2d and all(p.level == "pcie" and p.bytes > 0 for p in h2d)
