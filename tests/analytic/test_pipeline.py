import pytest

from rooftop.analytic.engine import evaluate
from rooftop.analytic.pipeline import plan, split_layers, stage_times
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset
from tests.analytic.toys import tiny, toy_roofs


def test_layers_split_over_stages():
    assert split_layers(61, 4) == (16, 15, 15, 15)  # 61 = 4 × 15 + 1: the first stage takes the extra
    assert split_layers(32, 2) == (16, 16)
    with pytest.raises(WorkloadError):
        split_layers(2, 3)


def test_stage_times_add_up_to_the_step():
    spec, roofs = tiny(), toy_roofs()
    ev = evaluate(spec, Workload(phase=Phase.DECODE, batch=2, context=3), roofs)
    assert sum(stage_times(ev, (2,))) == pytest.approx(float(ev.time_s))
    first, last = stage_times(ev, (1, 1))
    assert first + last == pytest.approx(float(ev.time_s))
    assert last > first  # the lm_head (80 weights) sits on the last stage, the embedding on the first


def test_bubble_and_step_time():
    spec, roofs = tiny(), toy_roofs()
    prefill = plan(spec, Workload(phase=Phase.PREFILL, batch=4, prompt=4), roofs, stages=2, microbatches=4)
    assert prefill.bubble == pytest.approx(1 / 5)  # (pp − 1)/(m + pp − 1) = 1/5
    assert prefill.step_s == pytest.approx(5 * prefill.slot_s)  # (m + pp − 1) slots
    # p2p: one micro-batch of 1 sequence × 4 tokens × 8 wide × 2 B = 64 B on the 1 B/s link
    assert prefill.p2p_bytes == 64.0 and prefill.p2p_s == pytest.approx(64.0)
    decode = plan(spec, Workload(phase=Phase.DECODE, batch=2, context=3), roofs, stages=2, microbatches=1)
    assert decode.bubble == pytest.approx(0.5)  # one micro-batch on two stages: 1 − 1/2
    assert decode.step_s == pytest.approx(2 * decode.slot_s)
    full = plan(spec, Workload(phase=Phase.DECODE, batch=2, context=3), roofs, stages=2, microbatches=2)
    assert full.bubble == 0.0
    with pytest.raises(WorkloadError, match="divide"):
        plan(spec, Workload(phase=Phase.DECODE, batch=3), roofs, stages=2, microbatches=2)


def test_llama_8b_decode_activation_bytes():
    p = plan(load_preset("llama-3.1-8b"), Workload(phase=Phase.DECODE, batch=8), get_roofs("h100-sxm"), 2)
    assert p.p2p_bytes == 4 * 4096 * 2  # 2 micro-batches of 4 sequences × 4096 × 2 B = 32,768 B
    assert p.p2p_s == pytest.approx(32_768 / 450e9)  # over NVLink, 450 GB/s per direction
