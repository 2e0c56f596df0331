"""Measured points and the step summary from hand-made attributed steps (no torch)."""

import pytest

from rooftop.core.points import Phase, Source
from rooftop.core.roofs import ComputeRoof, MemoryRoof, Roofs
from rooftop.measure.attribution import OpSample, StepProfile
from rooftop.measure.points import measured_points, step_summary

ROOFS = Roofs("toy", (ComputeRoof("fp32", 100.0),), (MemoryRoof("hbm", 10.0),))  # ridge 10 FLOP/B


def decode_step(index: int, gemm_s: float) -> StepProfile:
    ops = (
        OpSample("gemm", "aten::mm", gemm_s, 400.0, 400.0, 20.0),  # 20 FLOP/B: above the ridge
        OpSample("kv_append", "aten::copy_", 1.0, 0.0, 0.0, 8.0),
        OpSample("other", "aten::arange", 0.5, 0.0, 0.0, 0.0),
    )
    return StepProfile("decode", index, time_s=gemm_s + 1.5 + 0.5, gap_s=0.5, ops=ops)


STEPS = [StepProfile("prefill", 0, 9.0, 0.0), decode_step(1, 2.0), decode_step(2, 4.0)]


def test_decode_points_are_per_step_means():
    points = {p.label: p for p in measured_points(STEPS, "decode", "fp32", ROOFS)}
    assert sorted(points) == ["gemm", "kv_append", "other"]
    gemm = points["gemm"]
    # two steps: time (2 + 4) / 2 = 3 s; 400 FLOPs and 20 B per step
    assert (gemm.time_s, gemm.flops, gemm.bytes, gemm.count) == (3.0, 400.0, 20.0, 1)
    assert gemm.bound == "compute" and gemm.source is Source.MEASURED and gemm.phase is Phase.DECODE
    assert points["kv_append"].bound == "memory"  # 0 FLOP / 8 B < 10
    assert gemm.provenance["steps"] == 2 and gemm.provenance["aten_ops"] == ["aten::mm"]


def test_a_phase_without_steps_has_no_points():
    assert measured_points(STEPS[1:], "prefill", "fp32", ROOFS) == []
    assert step_summary(STEPS[1:], "prefill") == {}


def test_step_summary_accounts_for_the_step():
    s = step_summary(STEPS, "decode")
    # step times 4 and 6 s -> 5; ops 3.5 and 5.5 -> 4.5; gaps 0.5; "other" 0.5; KV append 1 s, 8 B
    assert s["steps"] == 2 and s["step_times_s"] == [4.0, 6.0]
    assert (s["step_time_s"], s["op_time_s"], s["gap_s"]) == (5.0, 4.5, 0.5)
    assert (s["unattributed_s"], s["kv_append_s"], s["kv_append_bytes"]) == (0.5, 1.0, 8.0)
    # accounted: (4.5 - 0.5 + 0.5) / 5 = 0.9; gaps 0.5 / 5 = 0.1
    assert s["accounted_share"] == pytest.approx(0.9) and s["gap_share"] == pytest.approx(0.1)
