"""Nsight Systems GPU traces (``nsys stats --report cuda_gpu_trace --format csv``): a timeline without a host side.

The rows are real: the GPU trace nsys 2026.3.1 wrote for a saxpy demo (four calls, each two 4 MiB
copies to the device, the kernel, a copy back) on an RTX 5000 Ada laptop GPU, as a public C++
project's unit test quotes it (vernier bench, demo 05 "NvtxAnnotation", NsysReport NSYS_2026_3_1;
its repository's licence is not known here, so the rows are written out, not vendored as a file).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from rooftop.api.ingest import import_path
from rooftop.cli.main import cli
from rooftop.core.points import Source
from rooftop.errors import TraceFormatError
from rooftop.ingest.detect import NSYS_TRACE, detect
from rooftop.ingest.nsys_trace import read_gpu_trace
from rooftop.ingest.tables import KERNEL, MEMCPY

HEADER = (
    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),"
    "Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name"
)
DEVICE = "NVIDIA RTX 5000 Ada Generation Laptop GPU (0),1,,"  # Device, Ctx, GreenCtx
SAXPY = '"vernier::bench::demo::<unnamed>::saxpyKernel(float, const float *, float *, unsigned long)"'
NAMES = {"D": DEVICE, "K": SAXPY, "H2D": "[CUDA memcpy Host-to-Device]", "D2H": "[CUDA memcpy Device-to-Host]"}
ROWS = [
    row.format(**NAMES)
    for row in (
        "1134711990,661398,123,,,,,,,,,,4.194,6337.593,Pinned,Device,{D}13,{H2D}",
        "1135375308,660534,124,,,,,,,,,,4.194,6345.982,Pinned,Device,{D}13,{H2D}",
        "1136125733,7072,128,4096,1,1,256,1,1,16,0.000,0.000,,,,,{D}13,{K}",
        "1136151973,542802,130,,,,,,,,,,4.194,7725.908,Device,Pinned,{D}13,{D2H}",
        "1138878399,520818,132,,,,,,,,,,4.194,8053.064,Pinned,Device,{D}13,{H2D}",
        "1139400913,526641,133,,,,,,,,,,4.194,7960.789,Pinned,Device,{D}13,{H2D}",
        "1139935682,6945,135,4096,1,1,256,1,1,16,0.000,0.000,,,,,{D}13,{K}",
        "1139948227,520497,137,,,,,,,,,,4.194,8057.258,Device,Pinned,{D}13,{D2H}",
        "1497544834,638613,149,,,,,,,,,,4.194,6564.086,Pinned,Device,{D}14,{H2D}",
        "1498185367,512241,150,,,,,,,,,,4.194,8187.281,Pinned,Device,{D}14,{H2D}",
        "1498770795,6816,153,4096,1,1,256,1,1,16,0.000,0.000,,,,,{D}14,{K}",
        "1498799148,500528,156,,,,,,,,,,4.194,8376.025,Device,Pinned,{D}14,{D2H}",
        "1501710988,502896,158,,,,,,,,,,4.194,8338.276,Pinned,Device,{D}14,{H2D}",
        "1502215708,507345,159,,,,,,,,,,4.194,8266.973,Pinned,Device,{D}14,{H2D}",
        "1502812848,6592,162,4096,1,1,256,1,1,16,0.000,0.000,,,,,{D}14,{K}",
        "1502833457,504112,165,,,,,,,,,,4.194,8317.305,Device,Pinned,{D}14,{D2H}",
    )
]
KERNELS_NS = (7072, 6945, 6816, 6592)  # the four saxpyKernel rows


def write(tmp_path: Path, text: str, name: str = "trace.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_detected_and_read_as_gpu_activities(tmp_path: Path) -> None:
    path = write(tmp_path, "\n".join([HEADER, *ROWS]) + "\n")
    assert detect(path) == NSYS_TRACE
    trace = read_gpu_trace(path)
    gpu = trace.gpu
    assert (int((gpu.kind == KERNEL).sum()), int((gpu.kind == MEMCPY).sum())) == (4, 12)
    assert trace.device_name == "NVIDIA RTX 5000 Ada Generation Laptop GPU" and trace.vendor == "NVIDIA"
    assert sorted(gpu.dur_us[gpu.kind == KERNEL].tolist()) == sorted(ns / 1e3 for ns in KERNELS_NS)
    # "Bytes (MB)" is decimal: 4.194 MB = 4,194,000 bytes (a 4 MiB = 4,194,304-byte copy, as nsys rounds it)
    assert gpu.bytes[gpu.kind == MEMCPY].tolist() == [4_194_000.0] * 12
    assert sorted(set(gpu.stream.tolist())) == [13, 14] and trace.launches.ts_us.size == 0


def test_timeline_numbers_by_hand(tmp_path: Path) -> None:
    result = import_path(write(tmp_path, "\n".join([HEADER, *ROWS]) + "\n")).results[0]
    tl = result.extra["timeline"]
    assert result.workload["source"] == "nsys-trace" and tl["host_side"] is False
    # busy: 7,072 + 6,945 + 6,816 + 6,592 = 27,425 ns of kernels
    assert tl["busy_s"] == pytest.approx(27_425e-9)
    # span: first kernel 1,136,125,733 ns to the last one's end 1,502,812,848 + 6,592 = 366,693,707 ns
    assert tl["span_s"] == pytest.approx(366_693_707e-9)
    # largest gap: kernel 2 ends 1,139,935,682 + 6,945 = 1,139,942,627; kernel 3 starts 1,498,770,795
    assert tl["largest_gap_s"] == pytest.approx(358_828_168e-9)
    assert tl["largest_gap_offset_s"] == pytest.approx(3_816_894e-9)  # 1,139,942,627 - 1,136,125,733
    # the nine copies inside the kernels' span: 542,802 + 520,818 + 526,641 + 520,497 + 638,613 + 512,241
    # + 500,528 + 502,896 + 507,345 = 4,772,381 ns of the gaps are copies; no host side to blame the rest on
    assert tl["gap_copy_s"] == pytest.approx(4_772_381e-9)
    assert (tl["kernels"], tl["memcpy"], tl["gaps_over_10us"]) == (4, 12, 3)
    h2d = next(p for p in result.points if "Host-to-Device" in p.label)
    # 8 copies of 4,194,000 B in 661,398 + 660,534 + 520,818 + 526,641 + 638,613 + 512,241 + 502,896
    # + 507,345 = 4,530,486 ns: 33,552,000 B at 7.406 GB/s
    assert (h2d.count, h2d.bytes, h2d.time_s) == (8, 33_552_000.0, pytest.approx(4_530_486e-9))
    kernel = next(p for p in result.points if "saxpy" in p.label)
    assert {p.source for p in result.points} == {Source.NSYS}
    assert kernel.label.startswith("vernier::") and kernel.provenance["cpu_op"] == "<no cpu op>"


def test_nsys_preamble_time_unit_and_older_header(tmp_path: Path) -> None:
    # nsys prints its progress before the CSV when it exports first; --timeunit usec changes the time
    # columns; nsys 2021 wrote no GreenCtx column and "Throughput (MBps)"
    old = HEADER.replace(",GreenCtx", "").replace("(MB/s)", "(MBps)").replace("(ns)", "(us)")
    row = "1136125.733,7.072,128,4096,1,1,256,1,1,16,0.000,0.000,,,,,NVIDIA H100 80GB HBM3 (3),1,13,saxpy"
    text = f"NOTICE: Existing SQLite export found: x.sqlite\n\nProcessing [x.sqlite] with [cuda_gpu_trace.py]...\n{old}\n{row}\n"
    trace = read_gpu_trace(write(tmp_path, text))
    assert trace.gpu.ts_us.tolist() == [1136125.733] and trace.gpu.dur_us.tolist() == [7.072]
    assert (trace.gpu.device.tolist(), trace.device_name) == ([3], "NVIDIA H100 80GB HBM3")


def test_bad_rows_skipped_and_an_empty_trace_refused(tmp_path: Path) -> None:
    text = "\n".join([HEADER, ROWS[2], ROWS[6].replace("1139935682,", "-5,"), "garbage"]) + "\n"
    trace = read_gpu_trace(write(tmp_path, text))
    assert trace.events == 1 and trace.skipped == {"row without a numeric start and duration": 2}
    with pytest.raises(TraceFormatError, match="without any kernel or copy row"):
        read_gpu_trace(write(tmp_path, HEADER + "\n", "empty.csv"))


def test_cli_says_there_is_no_host_side(tmp_path: Path) -> None:
    path = write(tmp_path, "\n".join([HEADER, *ROWS]) + "\n")
    out = CliRunner().invoke(cli, ["import", str(path)], env={"COLUMNS": "80"})
    assert out.exit_code == 0, out.output
    assert "none in this file (GPU activities only)" in out.output and "<no cpu op>" not in out.output
    empty = CliRunner().invoke(cli, ["import", str(write(tmp_path, HEADER + "\n", "e.csv"))])
    assert empty.exit_code == 2 and "without any kernel or copy row" in empty.output


def test_one_result_per_gpu(tmp_path: Path) -> None:
    # nsys profiles every GPU of the process tree into one report: the calls on stream 14 moved to a
    # second GPU give two results, each with its own timeline (a union across GPUs would be no GPU's)
    second = "NVIDIA RTX 5000 Ada Generation Laptop GPU (1),1,,"
    rows = [row.replace(DEVICE, second) if ",14," in row else row for row in ROWS]
    run = import_path(write(tmp_path, "\n".join([HEADER, *rows]) + "\n"))
    assert [r.workload["device_index"] for r in run.results] == [0, 1]
    first, other = (r.extra["timeline"] for r in run.results)
    # GPU 0: kernels at 1,136,125,733 (7,072 ns) and 1,139,935,682 (6,945 ns): span 1,139,942,627 - 1,136,125,733
    assert (first["kernels"], first["span_s"]) == (2, pytest.approx(3_816_894e-9))
    # GPU 1: 1,498,770,795 (6,816 ns) and 1,502,812,848 (6,592 ns): span 4,048,645 ns
    assert (other["kernels"], other["busy_s"]) == (2, pytest.approx(13_408e-9))
    assert other["span_s"] == pytest.approx(4_048_645e-9)
