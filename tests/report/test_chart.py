"""report.chart: roof lines per dtype peak and memory level, ridges, pinned points, kinds drawn apart."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from rooftop.core.roofs import RoofKind
from rooftop.report.chart import ROOF_DASH, build_chart
from tests.report.runs import H100, decode_run


def test_every_op_of_both_workloads_is_a_point_or_listed() -> None:
    run = decode_run()
    chart = build_chart([run])
    # 17 ops per step; embed and kv_append (no FLOPs) and softmax (no HBM bytes) cannot sit on a log-log chart:
    # issue 10: they were pinned at real-looking coordinates; now they are listed under it
    assert len(chart.points) + len(chart.unplaced) == sum(len(r.points) for r in run.results) == 2 * 17
    assert sorted({p.point.label for p in chart.unplaced}) == ["embed", "kv_append", "softmax"]
    assert len(chart.points) == 2 * 14 and chart.results == ("decode b=1 c=2048", "decode b=64 c=2048")
    # one colour per result (issue 10: decode at batch 1 and batch 64 shared one colour)
    assert {p.colour for p in chart.points if p.result_index == 0} != {p.colour for p in chart.points if p.result_index}


def test_one_compute_line_per_distinct_peak_and_one_memory_line_per_level() -> None:
    chart = build_chart([decode_run()])
    compute = [line.label for line in chart.roofs if line.family == "compute"]
    memory = [line.label for line in chart.roofs if line.family == "memory"]
    # h100-sxm: fp64 34, fp32 67, tf32 494.7, bf16 = fp16 989.4, fp8 = int8 1978.9 TFLOP/s -> 5 lines
    assert len(compute) == 5
    assert any(label.startswith("bf16/fp16 989 TFLOP/s") for label in compute)
    # HBM 3.35 TB/s, NVLink 450 GB/s per direction, the 400 Gb/s NIC per GPU (50 GB/s)
    assert [label.split()[0] for label in memory] == ["HBM", "LINK", "NETWORK"]
    bf16 = next(r for r in chart.ridges if "bf16" in r.label)
    assert bf16.x == pytest.approx(989.4e12 / 3.35e12)  # 295.3 FLOP/B
    assert bf16.y == 989.4e12


def test_points_sit_at_intensity_and_achieved_rate_or_are_pinned() -> None:
    chart = build_chart([decode_run()])
    by_label = {(p.result, p.point.label): p for p in chart.points}
    q = by_label[("decode b=1 c=2048", "q_proj")]
    assert q.x == pytest.approx(q.point.flops / q.point.bytes) and q.pinned == ""
    assert q.y == pytest.approx(q.point.flops / q.point.time_s)  # type: ignore[operator]
    unplaced = {(p.result, p.point.label): p for p in chart.unplaced}
    assert unplaced[("decode b=1 c=2048", "embed")].pinned.startswith("no FLOPs")
    assert unplaced[("decode b=1 c=2048", "softmax")].pinned.startswith("no HBM bytes")
    everything = (*chart.points, *chart.unplaced)
    assert sum(p.share for p in everything if p.result == "decode b=64 c=2048") == pytest.approx(1.0)
    assert any("intensity" in line for line in q.hover_lines())


def test_measured_roofs_are_drawn_apart_from_datasheet() -> None:
    hbm = H100.memory_roof("hbm")
    measured = replace(
        H100,
        name="h100-sxm (measured)",
        compute=(),
        memory=(replace(hbm, bytes_per_s=2.9e12, kind=RoofKind.MEASURED, source="stream triad"),),
    )
    chart = build_chart([replace(decode_run(), extra_roofs=(measured,))])
    kinds = {line.kind for line in chart.roofs}
    assert kinds == {RoofKind.DATASHEET, RoofKind.MEASURED}
    assert ROOF_DASH[RoofKind.DATASHEET] != ROOF_DASH[RoofKind.MEASURED]


def test_roofs_have_their_own_colours_and_a_cpu_has_dram() -> None:
    chart = build_chart([decode_run()])
    compute = [line.colour for line in chart.roofs if line.family == "compute"]
    assert len(set(compute)) == len(compute) == 5  # issue 10: every roof was a black line
    cpu = replace(H100, name="cpu:AMD EPYC", vendor="cpu")
    cpu_chart = build_chart([replace(decode_run(), roofs=cpu)])
    assert [line.label.split()[0] for line in cpu_chart.roofs if line.family == "memory"] == ["DRAM", "LINK", "NETWORK"]
    assert cpu_chart.memory_label == "DRAM"  # issue 10: the memory roof of a CPU was called HBM


def test_a_file_without_flops_gets_a_kernel_ranking_and_the_reason() -> None:
    from rooftop.api.ingest import import_path
    from tests.conftest import data_path

    chart = build_chart([import_path(data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv"))])
    assert chart.points == () and len(chart.unplaced) == 46
    assert chart.no_roofline.startswith("No roofline: none of the 46 points has a FLOP count")
    top = chart.by_time(3)
    assert [round((p.point.time_s or 0) * 1e3, 1) for p in top] == [61.6, 26.4, 10.7]
    assert chart.title == "Roofline — decode_cuda_gpu_kern_sum.csv"  # no 'None', no 'unknown'
    assert "Nsight Systems gives kernel times" in chart.no_roofline


def test_a_kernel_without_a_roof_of_its_precision_is_named() -> None:
    # issue 10: an ncu bf16 tensor-core GEMM at 112 TFLOP/s was drawn above the only compute roof (fp32, 87.5)
    from rooftop.api.ingest import import_path
    from tests.conftest import data_path

    run = import_path(data_path("ncu-csv-llm-perf-opt", "kernel_0005.ncu.metrics.csv"))
    (point,) = run.results[0].points
    assert point.dtype == "bf16" and point.flop_per_s == pytest.approx(112.09e12, rel=1e-3)
    (note,) = build_chart([run]).notes
    assert (
        note.startswith("1 bf16 point(s) (#0 Kernel2<cutlass_80_tensorop_bf16") and "(it has fp32, fp64 only)" in note
    )
    assert (
        build_chart([import_path(data_path("ncu-csv-llm-perf-opt", "kernel_0005.ncu.metrics.csv"), H100)]).notes == ()
    )


def test_two_devices_share_the_roofs_they_have_in_common() -> None:
    # issue 10: with two devices ten roof labels overlapped; an H100 and an H200 share every compute peak
    from rooftop.hardware.catalog import get_roofs

    h200 = replace(decode_run(), roofs=get_roofs("h200-sxm"))
    chart = build_chart([decode_run(), h200])
    compute = [line.label for line in chart.roofs if line.family == "compute"]
    assert len(compute) == 5 and "h100-sxm, h200-sxm bf16/fp16 989 TFLOP/s (datasheet)" in compute
    memory = sorted(line.label for line in chart.roofs if line.family == "memory")
    # HBM differs (3.35 vs 4.8 TB/s), the link (450 GB/s) and the network (50 GB/s) are the same
    assert memory == ["h100-sxm HBM 3.35 TB/s (datasheet)", "h100-sxm, h200-sxm LINK 450 GB/s (datasheet)",
                      "h100-sxm, h200-sxm NETWORK 50 GB/s (datasheet)", "h200-sxm HBM 4.8 TB/s (datasheet)"]  # fmt: skip
