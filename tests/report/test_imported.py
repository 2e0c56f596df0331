"""Terminal rendering of `rooftop import`: points, timeline, steps, nsys breakdown, escaping, skipped files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rich.console import Console

from rooftop.api.ingest import import_path
from rooftop.core.artifact import Run
from rooftop.hardware.catalog import get_roofs
from rooftop.report.imported import (
    breakdown_table,
    point_row,
    points_table,
    render_import,
    steps_table,
    timeline_table,
)
from tests.conftest import data_path
from tests.ingest.conftest import kernel, launch


def _text(renderable: object, width: int = 220) -> str:
    console = Console(record=True, width=width)
    console.print(renderable)
    return console.export_text()


def _render(run: Run, top: int = 15) -> str:
    console = Console(record=True, width=220)
    render_import(run, console, top)
    return console.export_text()


def test_timeline_table_figures() -> None:
    run = import_path(data_path("hta-traces", "sampled_rank-0.json.gz"))
    text = _text(timeline_table(run.results[0].extra["timeline"]))
    # README: span 1,222,818 µs, busy 547,303 µs, idle 675,515 µs (55.24 %); largest gap 58,862 µs at
    # ts=1682725899072204; 705 gaps > 10 µs; 10 NCCL kernels; every kernel has its launch call.
    # The first GPU activity starts at ts 1682725898082228: the gap opens 989,976 µs into the span.
    assert "1.22 s / 547 ms / 676 ms (55.2% idle)" in text
    assert "58.9 ms 990 ms into the span (ts 1682725899072204 µs); 705 gaps > 10 µs" in text
    assert "10 kernels" in text and "0 (0.0%) without a launch call" in text


def test_steps_table_marks_the_last_step() -> None:
    run = import_path(data_path("hta-traces", "nccl_data.json.gz"))
    rows = [line for line in _text(steps_table(run.results[0].extra["steps"])).splitlines() if "ProfilerStep" in line]
    assert [row.split()[0] for row in rows] == ["ProfilerStep#4", "ProfilerStep#5", "ProfilerStep#6"]
    assert rows[-1].split()[1] == "(last)" and "(last)" not in rows[0] + rows[1]


def test_points_table_top_and_shares() -> None:
    run = import_path(data_path("hta-traces", "sampled_rank-0.json.gz"), get_roofs("a100-80gb-sxm"))
    result = run.results[0]
    text = _text(points_table(result, run.roofs, top=4))
    assert f"top 4 of {len(result.points)} points by time" in text
    body = [line for line in text.splitlines() if "%" in line]
    assert len(body) == 4
    # the top point: sendrecv ops -> ncclKernel_SendRecv, 4 calls, 30.0 % of the kernel+copy time
    top = max(result.points, key=lambda p: p.time_s or 0.0)
    assert top.provenance["kernel"].startswith("ncclKernel_SendRecv") and top.count == 4
    assert body[0].startswith(f"{top.provenance['cpu_op']} → ncclKernel_SendRecv") and " 4 " in body[0]


def test_nsys_breakdown_table() -> None:
    run = import_path(data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv"))
    breakdown = run.results[0].extra["breakdown"]
    text = _text(breakdown_table(breakdown))
    assert f"{breakdown['kernel_names']} kernel names" in text
    for name, entry in breakdown["classes"].items():
        assert f"{entry['share']:.1%}" in text and name in text


def test_render_escapes_names_and_lists_skipped_files(tmp_path: Path) -> None:
    events = [launch(0, 2, 1), kernel(5, 10, 1, name="[bold]evil[/bold]"), kernel(40, 10, 2, name="[link=x]k[/link]")]
    (tmp_path / "[b]t.json").write_text(json.dumps({"traceEvents": events}))
    (tmp_path / "notes.txt").write_text("hello")
    text = _render(import_path(tmp_path))
    # printed literally, not as rich markup: kernel names, and the file name in the panel title
    assert "[bold]evil[/bold]" in text and "[link=x]k[/link]" in text and "[b]t.json" in text
    assert "skipped notes.txt" in text
    # busy 20 µs over a 45 µs span: 25 µs idle, the largest gap 25 µs at ts=15
    assert "45 µs / 20 µs / 25 µs (55.6% idle)" in text and "25 µs 10 µs into the span (ts 15 µs)" in text


def test_render_run_of_ranks(tmp_path: Path) -> None:
    for name in ("sampled_rank-0.json.gz", "triton_example.json.gz"):
        shutil.copy(data_path("hta-traces", name), tmp_path / name)
    text = _render(import_path(tmp_path, get_roofs("a100-80gb-sxm")), top=2)
    assert "rank 0" in text and "triton_example.json.gz" in text
    assert text.count("top 2 of") == 1 and "top 1 of 1 points" in text  # triton_example has a single point
    assert (
        "largest gap                       none: the kernels' intervals leave no hole" in text
    )  # one kernel: no gap, no 'nan'
    assert "nan" not in text
    assert text.startswith("roofs: a100-80gb-sxm:")


def test_without_roofs_the_line_names_the_hardware_to_pass() -> None:
    h200 = _render(import_path(data_path("gpu", "llama-3.2-1b-b16-h200.json.gz")), top=1)
    # the trace says "NVIDIA H200", which the SXM and the NVL both report: both are offered
    assert h200.startswith("roofs: none for NVIDIA H200; pass -H h200-nvl or h200-sxm\n")
    amd = _render(import_path(data_path("hta-traces", "mi250_minitoy_rocm.json.gz")), top=1)
    assert amd.startswith("roofs: none for AMD Radeon Graphics\n")  # ROCm's name: no model
    given = _render(import_path(data_path("gpu", "llama-3.2-1b-b16-h200.json.gz"), get_roofs("h200-sxm")), top=1)
    assert "pass -H" not in given


def test_roofs_line_names_the_roofs_the_points_use() -> None:
    # The H200 trace's GEMMs are bf16 and its casts/reductions fp32: those two roofs, not the
    # catalog's first three (fp64, fp32, tf32), which said nothing about a bf16 run.
    run = import_path(data_path("gpu", "llama-3.2-1b-b16-h200.json.gz"), get_roofs("h200-sxm"))
    assert "roofs: h200-sxm: fp32 67 TFLOP/s, bf16 989 TFLOP/s; hbm 4.8 TB/s" in _render(run)


def test_a_point_without_bytes_shows_no_level() -> None:
    # nsys summary points are timed only (no bytes): the table said "hbm" beside every one of them
    run = import_path(data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv"))
    points, roofs = run.results[0].points, run.roofs
    total = sum(p.time_s or 0.0 for p in points)  # 179,072,697 ns
    top = point_row(points[0], roofs, total)
    assert points[0].level == "hbm" and top["level"] == ""  # the level still counts the point in the share
    assert top["share"] == "34.4%"  # 61,602,133 / 179,072,697 ns
    ncu = import_path(data_path("ncu-csv-olajide-gpu-roofline-profiler", "saxpy.csv"))
    (saxpy,) = ncu.results[0].points  # 177,852,672 DRAM bytes: a level to name
    assert point_row(saxpy, ncu.roofs, saxpy.time_s or 1.0)["level"] == "hbm"
    assert "level" not in _text(points_table(run.results[0], roofs)).splitlines()[1]  # the empty column is dropped
