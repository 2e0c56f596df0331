"""Nsight Compute CSVs: both fixture styles, a synthetic --page raw export, roofs from the chart section."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftop.core.points import Source
from rooftop.errors import TraceFormatError
from rooftop.ingest.mapping import load
from rooftop.ingest.ncu import launch_points, read_ncu, theoretical_roofs, value
from tests.conftest import data_path

OLAJIDE = {  # file: (kernel, gpu__time_duration µs, DRAM read+write bytes, achieved GB/s) from the README
    "saxpy.csv": ("saxpy_kernel", 292.928, 177_852_672, 607.2),
    "transpose_naive.csv": ("transpose_naive_kernel", 163.072, 23_401_216, 143.5),
    "transpose_tiled.csv": ("transpose_tiled_kernel<32>", 85.824, 30_057_216, 350.2),
    "gemm_naive.csv": ("gemm_naive_kernel", 9_589.248, 80_808_960, 8.4),
    "gemm_tiled.csv": ("gemm_tiled_kernel<32>", 10_195.552, 56_639_232, 5.6),
    "gemm_register_blocked.csv": ("gemm_register_blocked_kernel", 2_970.912, 44_429_312, 15.0),
    "gemm_vectorized.csv": ("gemm_vectorized_kernel", 2_103.104, 46_334_464, 22.0),
}


@pytest.mark.parametrize("name", sorted(OLAJIDE))
def test_olajide_details(name: str) -> None:
    kernel, time_us, dram, gbs = OLAJIDE[name]
    data = read_ncu(data_path("ncu-csv-olajide-gpu-roofline-profiler", name))
    assert len(data.launches) == 1 and data.skipped == {}
    (point,) = launch_points(data.launches[0], name)  # DRAM only: one hbm point
    assert kernel in point.label and point.level == "hbm" and point.source is Source.NCU
    assert point.time_s == pytest.approx(time_us * 1e-6)
    assert point.bytes == dram  # "134,221,568" + "43,631,104" for saxpy: thousands separators
    assert point.bytes_per_s / 1e9 == pytest.approx(gbs, abs=0.05)
    assert point.flops == 0  # no FLOP counters in these exports


LLM = {  # prefix: (time µs, tensor FLOPs, DRAM bytes, GB/s, FLOP/s)
    "kernel_0001": (6.75, 0, 2.33e6, 345.1, 0.0),
    "kernel_0005": (111.81, 12_532_580_352, 17.50e6, 156.5, 112.1e12),
    "kernel_0009": (160.74, 10_192_158_720, 105.65e6, 657.3, 63.4e12),
    "kernel_0013": (10.34, 335_544_320, 4.74e6, 458.4, 32.5e12),
}


@pytest.mark.parametrize("prefix", sorted(LLM))
def test_llm_perf_opt_metrics(prefix: str) -> None:
    time_us, flops, dram, gbs, flop_s = LLM[prefix]
    data = read_ncu(data_path("ncu-csv-llm-perf-opt", f"{prefix}.ncu.metrics.csv"))
    (point,) = launch_points(data.launches[0], prefix)
    assert point.time_s == pytest.approx(time_us * 1e-6)
    assert point.flops == flops  # sm__ops_path_tensor_src_bf16_dst_fp32.sum; flop_count_* are "n/a"
    assert point.bytes == pytest.approx(dram)  # "17.50" Mbyte + "0" byte: mixed auto-scaled units
    # auto-scaled exports round to 3-4 digits ("2.33" Mbyte), so GB/s agrees with ncu's to 0.1 %
    assert point.bytes_per_s / 1e9 == pytest.approx(gbs, rel=1e-3)
    assert point.flop_per_s == pytest.approx(flop_s, rel=2e-3, abs=1)
    assert point.dtype == ("bf16" if flops else "")


def test_roofs_from_roofline_section() -> None:
    data = read_ncu(data_path("ncu-csv-llm-perf-opt", "kernel_0005.ncu.section_SpeedOfLight_RooflineChart.csv"))
    roofs = theoretical_roofs(data, "rtx5090")
    assert roofs is not None
    # DRAM 128 B/cycle x 13.78 GHz = 1.764 TB/s; FP32 43,520 FLOP/cycle x 2.01 GHz = 87.5 TFLOP/s
    assert roofs.bandwidth("hbm") == pytest.approx(128 * 13.78e9)
    assert roofs.peak("fp32") == pytest.approx(43_520 * 2.01e9)
    assert roofs.peak("fp64") == pytest.approx(680 * 2.01e9)
    assert roofs.memory_roof("hbm").kind.value == "theoretical"


_METRICS = ["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
            "l1tex__t_bytes.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
            "sm__sass_thread_inst_executed_op_fadd_pred_on.sum"]  # fmt: skip
RAW = "\n".join(
    [
        "==PROF== Connected to process 1",
        "some program output, with a comma",
        ",".join(f'"{c}"' for c in ["ID", "Process ID", "Kernel Name", "Device", *_METRICS]),
        '"","","","","usecond","Mbyte","Kbyte","Mbyte","Gbyte","inst","inst"',
        '"0","7","gemv_kernel(float*)","0","10.5","2.5","500","4","0.01","1,000,000","n/a"',
        '"1","7","sgemm_kernel","0","100","1","0","50","0.2","20,000,000","5,000"',
        "==PROF== Disconnected from process 1",
        "",
    ]
)


def test_raw_page_hierarchical_points(tmp_path: Path) -> None:
    path = tmp_path / "raw.csv"
    path.write_text(RAW)
    data = read_ncu(path)
    assert [launch.id for launch in data.launches] == ["0", "1"]
    assert data.skipped == {"row with 1 cells for 11 columns": 1}  # the trailing ==PROF== line
    by_level = {p.level: p for p in launch_points(data.launches[0], "raw.csv")}
    assert set(by_level) == {"hbm", "l2", "l1"}
    assert by_level["hbm"].bytes == 2.5e6 + 500e3  # Mbyte + Kbyte (decimal)
    assert by_level["l2"].bytes == 4e6 and by_level["l1"].bytes == 0.01e9
    assert by_level["hbm"].time_s == pytest.approx(10.5e-6)
    assert by_level["hbm"].flops == 2 * 1_000_000  # FFMA counts 2; FADD "n/a" is missing
    second = launch_points(data.launches[1], "raw.csv")[0]
    assert second.flops == 2 * 20_000_000 + 5_000 and second.dtype == "fp32"


def test_units_and_missing_values() -> None:
    units = load("ncu_v1")["units"]
    assert value("53,261,312", "byte", units) == 53_261_312
    assert value("17.50", "Mbyte", units) == 17.5e6
    assert value("n/a", "", units) is None
    with pytest.raises(ValueError, match="unknown unit"):
        value("1", "furlong", units)


def test_units_row_only_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "u.csv"
    path.write_text(RAW.split("\n")[2] + "\n" + RAW.split("\n")[3] + "\n")
    with pytest.raises(TraceFormatError, match="units row but no launches"):
        read_ncu(path)


def test_not_ncu(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(TraceFormatError, match="no Nsight Compute header"):
        read_ncu(path)
