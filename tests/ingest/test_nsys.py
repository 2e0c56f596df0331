"""Nsight Systems kernel summaries: points per name and the time by kernel class."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftop.core.points import Source
from rooftop.errors import TraceFormatError
from rooftop.ingest.nsys import breakdown, read_nsys, summary_points
from tests.conftest import data_path


def test_decode_summary() -> None:
    rows, skipped = read_nsys(data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv"))
    b = breakdown(rows)
    # README: 46 names, 78,016 instances, 179,072,697 ns; top gemvx 61,602,133 ns over 16,448 (34.4 %)
    assert (b["kernel_names"], b["instances"], skipped) == (46, 78_016, {})
    assert b["total_s"] == pytest.approx(179_072_697e-9)
    top = summary_points(rows, "decode")[0]
    assert "gemvx" in top.label and top.count == 16_448 and top.source is Source.NSYS
    assert top.time_s == pytest.approx(61_602_133e-9)
    assert top.time_s / b["total_s"] == pytest.approx(0.344, abs=5e-4)
    assert b["classes"]["gemv"]["share"] == pytest.approx(0.496, abs=5e-4)  # all gemv entries: 49.6 %


def test_prefill_summary() -> None:
    rows, _ = read_nsys(data_path("nsys-csv-llm-perf-opt", "prefill_cuda_gpu_kern_sum.csv"))
    b = breakdown(rows)
    assert (b["kernel_names"], b["instances"]) == (97, 6_660)
    assert b["total_s"] == pytest.approx(65_691_733e-9)
    top = summary_points(rows, "prefill")[0]
    assert "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8" in top.provenance["kernel"]
    assert (top.time_s, top.count) == (pytest.approx(16_214_877e-9), 2_035)
    assert max(b["groups"], key=lambda g: b["groups"][g]["time_s"]) == "gemm"
    # The README says "there is no gemv"; the file does hold a few cuBLAS gemv launches (gemvx,
    # gemmk1 with GemvTensor operands) that are 0.05 % of the time: no gemv among the top entries.
    assert b["classes"]["gemv"]["share"] < 0.001


def test_not_a_summary(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("Time (%),Total Time (ns),Instances\n")
    with pytest.raises(TraceFormatError):
        read_nsys(path)
