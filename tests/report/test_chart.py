"""report.chart: roof lines per dtype peak and memory level, ridges, pinned points, kinds drawn apart."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rooftop.core.roofs import RoofKind
from rooftop.report.chart import ROOF_DASH, build_chart
from tests.report.runs import H100, decode_run


def test_every_op_of_both_workloads_is_a_point() -> None:
    run = decode_run()
    chart = build_chart([run])
    assert len(chart.points) == sum(len(r.points) for r in run.results) == 2 * 17


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
    assert by_label[("decode b=1 c=2048", "embed")].pinned == "no FLOPs"
    softmax = by_label[("decode b=1 c=2048", "softmax")]
    assert softmax.pinned.startswith("no HBM bytes") and softmax.x < chart.x_range[1]
    assert sum(p.share for p in chart.points if p.result == "decode b=64 c=2048") == pytest.approx(1.0)
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
