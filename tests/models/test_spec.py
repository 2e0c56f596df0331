import pytest

from rooftop.errors import SpecError
from rooftop.models.mixers import MLA
from rooftop.models.spec import ModelSpec, MoE


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


def test_active_params_leave_out_the_vision_tower_and_the_idle_weights():
    # what one text token runs: the tiny spec above (1,352) with a 1,000-parameter tower and 500
    # idle weights (mllama's cross-attention layers, for one) is 2,852 in memory, 1,352 active
    s = ModelSpec(
        name="t", layers=2, hidden=8, heads=2, kv_heads=1, ffn=16, vocab=10, vision_params=1000, idle_params=500
    )
    assert (s.param_count(), s.param_count(text_only=True), s.param_count(active=True)) == (2852, 1852, 1352)


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


def test_attention_shapes_per_layer_kind_and_kv_sharing():
    # 4 layers of 64: sliding layers have the model's 4 heads / 2 KV heads of 16; full layers 4 heads
    # and 1 KV head of 32 with k_eq_v (no v_proj); the last layer reads layer 1's cache
    from rooftop.models.mixers import AttentionShape, KVGroup

    full = AttentionShape(4, 1, 32, k_eq_v=True)
    s = ModelSpec(
        name="x",
        layers=4,
        hidden=64,
        heads=4,
        kv_heads=2,
        head_dim=16,
        ffn=128,
        vocab=10,
        mixers=("sliding", "full", "sliding", "full"),
        window=8,
        attention_shapes=(("full", full),),
        kv_shared_layers=1,
    )
    # sliding: q 64 x 64 + k, v 64 x 32 + o 64 x 64 = 12,288; full: q 64 x 128 + k 64 x 32 + o 128 x 64
    # = 18,432; the shared full layer keeps q and o: 16,384
    assert [s.attention_params(i) for i in range(4)] == [12_288, 18_432, 12_288, 16_384]
    # cached per token: sliding 2 x 2 heads x 16 = 64 elements (at most 8 tokens); full 1 head x
    # (32 keys + 32 values) = 64; the shared layer nothing
    assert s.kv_groups() == (KVGroup(8, 2, 2, 64), KVGroup(0, 1, 1, 64))
    assert s.kv_elements_per_sequence(100) == 2 * 8 * 64 + 100 * 64
    assert s.kv_layer_groups() == {8: 2, 0: 1}
