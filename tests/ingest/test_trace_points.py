"""Points of a trace: aggregation per (op, kernel), FLOPs from shapes, copies with bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftop.core.points import Source
from rooftop.ingest.join import join
from rooftop.ingest.kineto import read_trace
from rooftop.ingest.trace_points import points
from tests.conftest import data_path
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


def test_ops_without_flops_give_their_kernels_estimated_bytes(tmp_path: Path) -> None:
    # aten::mul [1024,1024] bf16 × [1024,1024] bf16: reads 2 × 1,048,576 × 2 B, writes one like the
    # largest, 1,048,576 × 2 B -> 6,291,456 B. aten::cat of a TensorList [[512,1024],[512,1024]]:
    # Kineto records no type, so the run's dtype counts (the mm's bf16): reads 2 × 524,288 × 2 B and
    # writes them -> 4,194,304 B. The custom op and the NCCL kernel under an aten op get no bytes.
    bf16 = "c10::BFloat16"
    events = [
        cpu_op(0, 10, "aten::mm", **{"Input Dims": [[64, 32], [32, 16]], "Input type": [bf16, bf16]}),
        cpu_op(20, 10, "aten::mul", **{"Input Dims": [[1024, 1024], [1024, 1024]], "Input type": [bf16, bf16]}),
        cpu_op(40, 10, "aten::cat", **{"Input Dims": [[[512, 1024], [512, 1024]], []],
                                      "Input type": ["TensorList", "Scalar"]}),
        cpu_op(60, 10, "fbgemm::lookup", **{"Input Dims": [[1 << 20, 128], [64]], "Input type": [bf16, "long int"]}),
        cpu_op(80, 10, "aten::add_", **{"Input Dims": [[4096], [4096]], "Input type": [bf16, bf16]}),
        launch(1, 1, 1), launch(21, 1, 2), launch(41, 1, 3), launch(61, 1, 4), launch(81, 1, 5),
        kernel(100, 5, 1, name="ampere_bf16_gemm"), kernel(110, 4, 2, name="vectorized_elementwise_kernel"),
        kernel(120, 3, 3, name="CatArrayBatchedCopy"), kernel(130, 2, 4, name="embedding_lookup_kernel"),
        kernel(140, 9, 5, name="ncclDevKernel_AllReduce_Sum_bf16_RING_LL"),
    ]  # fmt: skip
    trace = read_trace(write_trace(tmp_path / "t.json", events))
    pts = {p.provenance["cpu_op"]: p for p in points(trace, join(trace))}
    assert pts["aten::mul"].bytes == 6_291_456 and pts["aten::mul"].flops == 0
    assert pts["aten::mul"].dtype == "bf16" and "estimated" in pts["aten::mul"].provenance["bytes"]
    assert pts["aten::cat"].bytes == 4_194_304
    assert pts["fbgemm::lookup"].bytes == 0 and "bytes" not in pts["fbgemm::lookup"].provenance
    assert pts["aten::add_"].bytes == 0  # NCCL: its traffic is on the links, not an HBM estimate
    assert pts["aten::mm"].bytes == (64 * 32 + 32 * 16 + 64 * 16) * 2  # the formula's: 7,168


def test_estimated_bytes_stay_under_the_measured_roof() -> None:
    # A real H200 run (Llama-3.2-1B, batch 16, eager): 42 % of the kernel time (24 points) is elementwise,
    # norms, cat and copies. With their estimated bytes none may move more than the H200's HBM
    # (4.8 TB/s datasheet): a too-generous rule (a full embedding table read per lookup, a
    # TensorList at 4 B) would show 2-20x that. The fastest, a bf16 mul, runs at 92 %.
    trace = read_trace(data_path("gpu", "llama-3.2-1b-b16-h200.json.gz"))
    pts = points(trace, join(trace))
    memory = [p for p in pts if p.op != "memcpy" and p.flops == 0 and p.bytes]
    share = sum(p.time_s or 0 for p in memory) / sum(p.time_s or 0 for p in pts)
    assert len(memory) == 24 and share == pytest.approx(0.419, abs=0.001)
    assert max(p.bytes / (p.time_s or 1) for p in memory) < 4.8e12
