"""Format detection by content."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftop.errors import TraceFormatError
from rooftop.ingest.detect import KINETO, NCU, NSYS, detect
from tests.conftest import data_path


def test_fixtures() -> None:
    assert detect(data_path("hta-traces", "triton_example.json.gz")) == KINETO
    assert detect(data_path("ncu-csv-olajide-gpu-roofline-profiler", "saxpy.csv")) == NCU  # after 8 stray lines
    assert detect(data_path("ncu-csv-llm-perf-opt", "kernel_0001.ncu.metrics.csv")) == NCU
    assert detect(data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv")) == NSYS


def test_unknown(tmp_path: Path) -> None:
    path = tmp_path / "peaks.csv"
    path.write_text("label,peak_flops\n")
    with pytest.raises(TraceFormatError, match="not a Kineto trace"):
        detect(path)
