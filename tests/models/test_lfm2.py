"""LFM2, LFM2-MoE and LFM3 (Liquid): short-convolution layers beside attention, from their configs.

The shapes are those of Liquid AI's published configs as other projects quote them in their tests
and docs (licences unknown, so the fields are written here, not copied as files): LFM2.5-1.2B's
(hidden 2048, intermediate_size 12288, 16 layers of which 6 attention, tie_embedding), LFM2-350M's
(block_ff_dim 6656, full_attn_idxs instead of layer_types) and LFM2-8B-A1B's (24 layers, 32
experts, top-4, two dense layers). Expected parameter counts are transformers 5.24.0's meta-device
builds of the same fields (``Lfm2ForCausalLM``, ``Lfm2MoeForCausalLM``, ``Lfm3ForCausalLM``).
"""

from __future__ import annotations

import pytest

from rooftop.analytic.decompose import decompose
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import SpecError
from rooftop.models.hf_config import spec_from_config

C, A = "conv", "full_attention"
LFM2_5_1_2B = {
    "model_type": "lfm2",
    "architectures": ["Lfm2ForCausalLM"],
    "hidden_size": 2048,
    "intermediate_size": 12288,
    "num_hidden_layers": 16,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 65536,
    "max_position_embeddings": 128000,
    "conv_L_cache": 3,
    "conv_bias": False,
    "block_auto_adjust_ff_dim": True,
    "norm_eps": 1e-05,
    "tie_embedding": True,
    "layer_types": [C, C, A, C, C, A, C, C, A, C, A, C, A, C, A, C],
}
LFM2_350M = {  # the older spelling: block_ff_dim, full_attn_idxs, no layer_types
    "model_type": "lfm2",
    "vocab_size": 65536,
    "hidden_size": 1024,
    "num_hidden_layers": 16,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "max_position_embeddings": 128000,
    "conv_bias": False,
    "conv_L_cache": 3,
    "full_attn_idxs": [2, 5, 8, 10, 12, 14],
    "block_dim": 1024,
    "block_ff_dim": 6656,
}
LFM2_8B_A1B = {
    "model_type": "lfm2_moe",
    "vocab_size": 65536,
    "hidden_size": 2048,
    "intermediate_size": 7168,
    "moe_intermediate_size": 1792,
    "num_hidden_layers": 24,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "max_position_embeddings": 128000,
    "conv_bias": False,
    "conv_L_cache": 3,
    "num_dense_layers": 2,
    "num_experts": 32,
    "num_experts_per_tok": 4,
    "norm_topk_prob": True,
    "use_expert_bias": True,
    "layer_types": [C, C, A, C, C, C, A, C, C, C, A, C, C, C, A, C, C, C, A, C, C, A, C, C],
}


def test_lfm2_5_1_2b_parameters_equal_transformers():
    spec = spec_from_config(LFM2_5_1_2B, "lfm2.5-1.2b")
    assert spec.ffn == 8192  # int(2 × 12288 / 3) = 8192, already a multiple of 256
    assert spec.mixers.count("conv") == 10 and spec.attention_layers == 6
    conv = 4 * 2048 * 2048 + 3 * 2048  # in_proj 2048 -> 3 × 2048 (B, C, x), out_proj; 3 taps per channel
    attention = 2 * 2048 * 2048 + 2 * 2048 * 512 + 2 * 64  # q, out_proj; k, v (8 heads of 64); q/k norms per head
    mlp = 3 * 2048 * 8192
    total = 10 * conv + 6 * attention + 16 * (mlp + 2 * 2048) + 65536 * 2048 + 2048  # tied; embedding_norm
    assert spec.param_count() == total == 1_170_340_608  # the model card's 1.17 B
    # cache: K and V of the 6 attention layers per token; each conv layer holds 2 inputs per channel
    assert spec.kv_elements_per_token == 6 * 2 * 8 * 64 == 6144
    assert spec.state_elements_per_sequence == 10 * 2048 * 2 == 40_960


def test_lfm2_350m_older_fields():
    spec = spec_from_config(LFM2_350M, "lfm2-350m")
    assert spec.tied_embeddings  # transformers' default, the hub's tie_embedding
    assert spec.ffn == 4608  # int(2 × 6656 / 3) = 4437, rounded up to a multiple of 256
    assert [i for i in range(16) if spec.mixer(i) == "full"] == [2, 5, 8, 10, 12, 14]
    assert spec.param_count() == 354_483_968  # transformers


def test_lfm2_ffn_multiplier_and_biases():
    # 1000 -> int(2000 / 3) = 666 -> int(1.5 × 666) = 999 -> up to a multiple of 64: 1024; conv_bias
    # gives in_proj, the taps and out_proj a bias each (3c + c + c); 4 taps keep 3 inputs per channel
    config = {
        "model_type": "lfm2",
        "hidden_size": 256,
        "intermediate_size": 1000,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "vocab_size": 1000,
        "conv_bias": True,
        "conv_L_cache": 4,
        "block_ffn_dim_multiplier": 1.5,
        "block_multiple_of": 64,
        "layer_types": [C, A, C, C],
        "tie_word_embeddings": False,
    }
    spec = spec_from_config(config, "x")
    assert spec.ffn == 1024
    assert spec.conv is not None and spec.conv.params() == 4 * 256 * 256 + 256 * 4 + 5 * 256
    assert spec.param_count() == 4_650_112  # transformers
    assert spec.state_elements_per_sequence == 3 * 256 * 3
    unadjusted = spec_from_config({**config, "block_auto_adjust_ff_dim": False}, "x")
    assert unadjusted.ffn == 1000


def test_lfm2_8b_a1b_moe():
    spec = spec_from_config(LFM2_8B_A1B, "lfm2-8b-a1b")
    assert spec.moe is not None and spec.moe.dense_layers == (0, 1) and spec.ffn == 7168  # no 2/3 rule
    assert spec.param_count() == 8_339_929_856  # "8.3B total"; expert_bias is a buffer, not counted
    experts = 22 * 28 * 3 * 2048 * 1792  # the 28 of 32 experts a token does not use, in 22 routed layers
    assert spec.param_count() - spec.param_count(active=True) == experts  # 1.56 B active: "A1B"


def test_lfm3_default_layout():
    # transformers' Lfm3Config defaults: 24 layers, i % 4 == 2 full, i % 4 == 0 (i > 0) sliding
    # (256 tokens), the rest convolutions of 7 taps; Qwen3-style attention (head_dim 128, q/k norms)
    # with a sigmoid gate per head (hidden -> 16) and four norms per layer
    config = {
        "model_type": "lfm3",
        "vocab_size": 128000,
        "hidden_size": 2048,
        "intermediate_size": 7680,
        "num_hidden_layers": 24,
        "num_attention_heads": 16,
        "num_key_value_heads": 4,
        "head_dim": 128,
    }
    spec = spec_from_config(config, "lfm3")
    assert (spec.mixers.count("conv"), spec.mixers.count("full"), spec.mixers.count("sliding")) == (13, 6, 5)
    assert spec.window == 256 and spec.conv is not None and spec.conv.kernel == 7
    assert spec.head_gate and spec.norms_per_layer == 4 and spec.ffn == 7680
    assert spec.param_count() == 1_728_801_536  # transformers
    plain = {**config, "use_sandwich_norm": False, "use_attention_gate": False, "num_hidden_layers": 8}
    plain |= {"tie_word_embeddings": False, "conv_bias": True}
    assert spec_from_config(plain, "x").param_count() == 1_017_277_184  # transformers


def test_short_convolution_decode_operators():
    # LFM2.5-1.2B, one decode token for 8 sequences at tp 2: each conv layer projects 2048 -> 3 × 1024
    # on its GPU, convolves 1024 channels (B·x, 3 taps, C·y: 8 FLOPs a channel, vector unit) reading
    # and writing a state of 1024 × 2 elements per sequence, and projects 1024 -> 2048
    w = Workload(phase=Phase.DECODE, batch=8, prompt=1, context=4096, tp=2)
    ops = {op.name: op for op in decompose(spec_from_config(LFM2_5_1_2B, "x"), w)}
    assert ops["conv_in_proj"].count == ops["short_conv"].count == 10
    assert float(ops["conv_in_proj"].cost.flops) == 2 * 8 * 2048 * 3072
    conv = ops["short_conv"].cost
    assert float(conv.flops) == 8 * 8 * 1024 and conv.unit == "vector" and float(conv.model_flops) == 0
    assert float(conv.kv_read_bytes) == float(conv.kv_write_bytes) == 8 * 1024 * 2 * 2  # bf16 state
    assert float(ops["conv_out_proj"].cost.flops) == 2 * 8 * 1024 * 2048


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"layer_types": [C, "mamba"] * 8}, "must list 16 of conv, full_attention, sliding_attention"),
        ({"layer_types": [C, A]}, "must list 16 of"),
        ({"layer_types": None, "full_attn_idxs": [2, 99]}, "full_attn_idxs"),
        ({"block_ffn_dim_multiplier": 1e30}, "MLP"),
        ({"conv_L_cache": 0}, "conv_L_cache"),
    ],
)
def test_bad_lfm2_fields_are_one_line_errors(change, message):
    config = {k: v for k, v in {**LFM2_5_1_2B, **change}.items() if v is not None}
    with pytest.raises(SpecError, match=message):
        spec_from_config(config, "x")


def test_a_layer_type_that_is_not_a_string_is_refused_in_one_line():
    # the config fuzz found it: a list inside layer_types raised TypeError (unhashable) before
    bad = [["conv"], *LFM2_5_1_2B["layer_types"][1:]]
    with pytest.raises(SpecError, match="must list 16 of conv"):
        spec_from_config({**LFM2_5_1_2B, "layer_types": bad}, "x")
    llama = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2}
    llama |= {"intermediate_size": 8, "vocab_size": 10, "layer_types": [{"a": 1}, "full_attention"]}
    with pytest.raises(SpecError, match="names layer type"):
        spec_from_config(llama, "x")


def test_nan_in_a_field_read_under_another_name_is_refused():
    # the config fuzz found it: MPT's n_heads (an alias of num_attention_heads) = NaN passed the
    # schema, which did not list the alias, and int() raised ValueError; now both refuse it
    mpt = {"model_type": "mpt", "d_model": 64, "n_heads": float("nan"), "n_layers": 2, "vocab_size": 10}
    with pytest.raises(SpecError, match="n_heads = nan: not a finite number"):
        spec_from_config(mpt, "x")
