import pytest

from rooftop.errors import SpecError
from rooftop.models.spec import MLA, ModelSpec, MoE


def test_derived_head_dim_and_params():
    s = ModelSpec(name="t", layers=2, hidden=8, heads=2, kv_heads=1, ffn=16, vocab=10)
    assert s.head_dim == 4 and s.kv_dim == 4 and s.q_dim == 8
    # per layer: attention 64 + 32 + 32 + 64 = 192, mlp 3*8*16 = 384, 2 norms x 8 = 16 -> 592
    # total: embed 80 + 2 x 592 + final norm 8 + lm_head 80 = 1352
    assert s.param_count() == 1352
    assert s.kv_bytes_per_token(2) == 2 * 2 * 1 * 4 * 2  # layers x (K,V) x kv_heads x d x 2 B = 32


def test_mla_kv_is_the_latent():
    s = ModelSpec(
        name="m",
        layers=1,
        hidden=16,
        heads=2,
        kv_heads=2,
        ffn=8,
        vocab=4,
        head_dim=12,
        mla=MLA(kv_lora_rank=8, qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=8, q_lora_rank=4),
    )
    assert s.kv_elements_per_token == 12  # 8 latent + 4 rope key, shared by all heads


def test_moe_active_params():
    s = ModelSpec(
        name="e", layers=1, hidden=4, heads=1, kv_heads=1, ffn=8, vocab=2, moe=MoE(experts=4, top_k=1, expert_ffn=8)
    )
    # experts: 4 x 3 x 4 x 8 = 384 (+ router 16); active: 1 x 96 + 16
    assert s.ffn_params(0) == 384 + 16
    assert s.ffn_params(0, active=True) == 96 + 16


@pytest.mark.parametrize(
    "kw",
    [
        {"heads": 3, "kv_heads": 2},
        {"layers": 0},
        {"hidden": 10, "heads": 3},
        {"moe": MoE(experts=2, top_k=3, expert_ffn=1)},
    ],
)
def test_impossible_specs(kw):
    base = {"name": "x", "layers": 1, "hidden": 8, "heads": 2, "kv_heads": 1, "ffn": 8, "vocab": 2}
    with pytest.raises(SpecError):
        ModelSpec(**(base | kw))
