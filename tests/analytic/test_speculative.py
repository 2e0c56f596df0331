import math

import numpy as np
import pytest
from msgspec.structs import replace

from rooftop.analytic.engine import evaluate
from rooftop.analytic.speculative import (
    Drafter,
    expected_tokens,
    gemm_intensity,
    ridge_new_tokens,
    speculate,
    verify_workload,
)
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset
from tests.analytic.toys import tiny, toy_roofs


def test_expected_tokens_closed_form():
    assert expected_tokens(4, 0.8) == pytest.approx(3.3616)  # (1 - 0.8^5) / 0.2 = 0.67232 / 0.2
    assert expected_tokens(1, 0.5) == pytest.approx(1.5)  # (1 - 0.25) / 0.5
    assert expected_tokens(3, 1.0) == 4.0  # every draft accepted: k + 1
    assert expected_tokens(3, 0.0) == 1.0  # none accepted: the bonus token only


def test_bad_k_and_alpha_are_refused():
    with pytest.raises(WorkloadError, match="k"):
        expected_tokens(0, 0.5)
    with pytest.raises(WorkloadError, match="α"):
        expected_tokens(2, 1.5)
    with pytest.raises(WorkloadError, match="drafter"):
        Drafter("medusa-3")


def test_verify_step_is_a_decode_step_of_k_plus_one_tokens():
    w = verify_workload(Workload(phase=Phase.DECODE, batch=2, context=5), k=2)
    assert float(w.new_tokens) == 3.0 and float(w.tokens) == 6.0  # 2 sequences × (k + 1 = 3)
    assert float(w.kv_tokens_after) == 8.0  # 5 cached + 3 new
    ev = evaluate(tiny(), w, toy_roofs())
    by = {t.op.name: t.op for t in ev.ops}
    # q_proj [6, 8] @ [8, 8]: 2·6·8·8 = 768 FLOP; bytes 64·2 + 6·8·2 + 6·8·2 = 320 B -> 32 s on 10 B/s
    assert float(by["q_proj"].cost.flops) == 768.0
    assert float(by["q_proj"].cost.bytes) == 320.0
    # the lm_head scores every position: 2·6·8·10 = 960 FLOP
    assert float(by["lm_head"].cost.flops) == 960.0
    assert w.describe()["decode_new"] == 3
    assert "decode_new" not in Workload().describe()  # unchanged JSON for ordinary steps


def test_tpot_is_verify_plus_drafting_over_expected_tokens():
    spec, roofs = tiny(), toy_roofs()
    w = Workload(phase=Phase.DECODE, batch=1, context=4)
    free = speculate(spec, w, roofs, k=3, alpha=0.6, drafter=Drafter("ngram"))
    e = (1 - 0.6**4) / 0.4  # 2.176
    assert free.expected_tokens == pytest.approx(e)
    assert float(free.tpot_s) == pytest.approx(float(free.verify_s) / e)
    assert float(free.draft_step_s) == 0.0 and free.draft_weight_bytes == 0.0
    head = speculate(spec, w, roofs, k=3, alpha=0.6, drafter=Drafter("head"))
    one_layer = evaluate(replace(spec, layers=1), w, roofs)
    assert float(head.draft_step_s) == pytest.approx(float(one_layer.time_s))
    assert float(head.tpot_s) == pytest.approx((float(head.verify_s) + 3 * float(one_layer.time_s)) / e)
    # the head's own weights: one layer of 576 matmul params + 2 norms of 8 + its final norm of 8,
    # in bf16 (the embedding and lm_head are the target's): (576 + 16 + 8) × 2 B = 1200 B
    assert head.draft_weight_bytes == pytest.approx((576 + 16 + 8) * 2)


def test_decode_crosses_the_ridge_as_k_plus_one_grows():
    spec, roofs = load_preset("llama-3.1-8b"), get_roofs("h100-sxm")
    w = Workload(phase=Phase.DECODE, batch=32, context=2048)
    n_star = ridge_new_tokens(spec, w, roofs)
    # n*·B = I*·W / (F − I*·A) does not depend on the batch
    assert n_star * 32 == pytest.approx(ridge_new_tokens(spec, replace(w, batch=1), roofs))
    ridge = roofs.ridge("bf16")  # 989.4 / 3.35 = 295.3 FLOP/B
    below = gemm_intensity(evaluate(spec, replace(w, decode_new=math.floor(n_star)), roofs))
    above = gemm_intensity(evaluate(spec, replace(w, decode_new=math.ceil(n_star)), roofs))
    assert float(below) < ridge <= float(above)
    assert 10 < n_star < 11  # B·n* ≈ 331 tokens for Llama-3.1-8B bf16 on H100


def test_speculation_runs_on_a_grid():
    spec, roofs = tiny(), toy_roofs()
    grid = Workload(phase=Phase.DECODE, batch=np.array([[1], [4]]), context=np.array([[3, 9]]))
    sp = speculate(spec, grid, roofs, k=2, alpha=0.5, drafter=Drafter("ngram"))
    assert np.shape(sp.tpot_s) == (2, 2)
    one = speculate(spec, Workload(phase=Phase.DECODE, batch=4, context=9), roofs, 2, 0.5, Drafter("ngram"))
    assert float(sp.tpot_s[1, 1]) == pytest.approx(float(one.tpot_s))


def test_the_head_is_one_layer_like_the_targets_last():
    from rooftop.analytic.speculative import head_spec

    mtp = head_spec(load_preset("deepseek-v3"))  # layers 0-2 dense, the last routes to experts
    assert mtp.layers == 1 and mtp.moe_layers == 1  # DeepSeek's MTP module is a MoE layer
    sliding = head_spec(load_preset("mistral-7b"))  # per-layer mixers: one entry for one layer
    assert sliding.layers == 1 and sliding.mixers == ("sliding",)
