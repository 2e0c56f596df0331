import numpy as np
import pytest

from rooftop.analytic.engine import evaluate
from rooftop.analytic.expert_parallel import (
    ExpertParallel,
    a2a_time_s,
    apply_ep,
    bytes_per_token,
    weights_bytes_per_gpu,
)
from rooftop.analytic.memory import expert_bytes_share
from rooftop.analytic.ops.all_to_all import all_to_all
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import CatalogError, WorkloadError
from rooftop.models.presets import load_preset
from tests.analytic.toys import tiny, tiny_moe, toy_roofs


def test_deepseek_v3_all_to_all_bytes_per_token_per_moe_layer():
    per = bytes_per_token(load_preset("deepseek-v3"), ExpertParallel(8))
    assert per["dispatch_bytes"] == 59_136  # 8 experts × (7168 × 1 B fp8 + 7168/128 × 4 B scales = 7392 B)
    assert per["combine_bytes"] == 114_688  # 8 × 7168 × 2 B bf16
    assert per["dispatch_remote_bytes"] == 51_744  # × 7/8 on other ranks
    assert per["combine_remote_bytes"] == 100_352
    bf16 = bytes_per_token(load_preset("deepseek-v3"), ExpertParallel(8, preset="bf16"))
    assert bf16["dispatch_bytes"] == 114_688  # no scales when the dispatch is bf16


def test_all_to_all_formula():
    # 2 tokens × top-2 = 4 copies of 4 × 1 B + 0.5 B scales = 4.5 B; 3/4 of them remote
    c = all_to_all(tokens=2, width=4, top_k=2, ep=4, elt_bytes=1.0, scale_bytes=0.5)
    assert float(c.link_bytes) == pytest.approx(4 * 4.5 * 3 / 4)  # 13.5 B
    assert float(c.act_in_bytes) == float(c.act_out_bytes) == 18.0
    assert float(c.flops) == 0.0
    combine = all_to_all(tokens=2, width=4, top_k=2, ep=4, elt_bytes=2.0, reduce=True)
    assert float(combine.flops) == 16.0  # weighted sum: 4 copies × 4 channels


def test_experts_sharded_and_all_to_alls_added():
    spec, roofs = tiny_moe(), toy_roofs()
    w = Workload(phase=Phase.DECODE, batch=1, context=3)
    plain = evaluate(spec, w, roofs)
    ep = apply_ep(plain, ExpertParallel(2))
    by0 = {t.op.name: t.op for t in plain.ops}
    by = {t.op.name: t.op for t in ep.ops}
    # one token reads top-2 of 4 experts: 2 experts; on 2 ranks each with 2 experts, the 2 tokens
    # of both ranks touch 2 × (1 − (1 − 2/4)^2) = 1.5 local experts
    ratio = float(by["experts_down"].cost.weight_bytes) / float(by0["experts_down"].cost.weight_bytes)
    assert ratio == pytest.approx(1.5 / 2)
    assert float(by["experts_down"].cost.flops) == float(by0["experts_down"].cost.flops)  # same routed rows
    # dispatch: 1 token × 2 copies × 8 channels × 1 B fp8 + 8/128 × 4 B scales = 16.5 B; half remote
    assert float(by["ep_dispatch"].cost.link_bytes) == pytest.approx(2 * (8 + 0.25) * 0.5)
    assert float(by["ep_combine"].cost.link_bytes) == pytest.approx(2 * 8 * 2 * 0.5)  # bf16 combine: 16 B
    # on the 1 B/s link: (8.25 + 16) s per layer, 2 MoE layers
    assert a2a_time_s(ep) == pytest.approx(2 * (8.25 + 16.0))
    inter = apply_ep(plain, ExpertParallel(2, link="inter"))  # the 0.5 B/s network roof
    assert a2a_time_s(inter) == pytest.approx(2 * a2a_time_s(ep))


def test_imbalance_loads_the_busiest_rank():
    spec, roofs = tiny_moe(), toy_roofs()
    plain = evaluate(spec, Workload(phase=Phase.DECODE, batch=4, context=3), roofs)
    even = {t.op.name: t.op for t in apply_ep(plain, ExpertParallel(2)).ops}
    hot = {t.op.name: t.op for t in apply_ep(plain, ExpertParallel(2, imbalance=1.5)).ops}
    assert float(hot["experts_gate_up"].cost.flops) == pytest.approx(1.5 * float(even["experts_gate_up"].cost.flops))
    assert float(hot["ep_dispatch"].cost.link_bytes) == pytest.approx(1.5 * float(even["ep_dispatch"].cost.link_bytes))


def test_ep_weights_per_gpu():
    spec = load_preset("deepseek-v3")
    share = expert_bytes_share(spec, Workload())
    # one dtype: the share of the parameters, 58 MoE layers × 256 experts × 3 × 7168 × 2048 = 654.0 B of 671.0 B
    assert share == pytest.approx(58 * 256 * 3 * 7168 * 2048 / spec.param_count())
    assert 0.97 < share < 0.98
    assert weights_bytes_per_gpu(Workload(), spec, 100.0, ExpertParallel(8)) == pytest.approx(
        100 * (1 - share) + 100 * share / 8
    )
    # experts in fp8, the rest bf16: a share of the bytes, 654.0 × 1 / (654.0 × 1 + 17.0 × 2)
    mixed = expert_bytes_share(spec, Workload(expert_dtype="fp8"))
    routed = spec.routed_expert_params
    assert mixed == pytest.approx(routed / (routed + 2 * (spec.param_count() - routed)))
    assert 0.94 < mixed < 0.96


def test_bad_layouts_are_refused():
    with pytest.raises(WorkloadError, match="MoE"):
        ExpertParallel(2).check(tiny())
    with pytest.raises(WorkloadError, match="does not divide"):
        ExpertParallel(3).check(tiny_moe())
    plain = evaluate(tiny_moe(), Workload(phase=Phase.DECODE), toy_roofs())
    no_net = type(plain.roofs)(name="bare", compute=plain.roofs.compute, memory=plain.roofs.memory[:2])
    with pytest.raises(CatalogError, match="network"):
        apply_ep(type(plain)(plain.spec, plain.workload, no_net, plain.ops), ExpertParallel(2, link="inter"))
    assert np.isfinite(float(apply_ep(plain, ExpertParallel(1)).time_s))
