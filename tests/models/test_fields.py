"""Field reading (models/fields.py) and which layers route (models/hf_moe.py)."""

import pytest

from rooftop.errors import SpecError
from rooftop.models.fields import count_field, get_field, int_field
from rooftop.models.hf_moe import dense_layers


def test_aliases_first_non_null_hit():
    assert get_field({"moe_topk": 8}, "num_experts_per_tok") == 8  # Hunyuan
    assert get_field({"num_experts_per_tok": None, "moe_topk": 2}, "num_experts_per_tok") == 2
    assert get_field({"num_shared_experts": 2}, "n_shared_experts") == 2  # EXAONE-MoE, Hy3, AFMoE
    assert get_field({"moe_num_experts": 8}, "num_local_experts") == 8  # Aria
    assert count_field({"num_dense_layers": 2}, "first_k_dense_replace", 0) == 2  # AFMoE


def test_a_uniform_per_layer_list_is_its_entry_and_a_varying_one_is_refused():
    assert int_field({"moe_topk": [8] * 32}, "num_experts_per_tok", "x") == 8
    with pytest.raises(SpecError, match="'num_experts_per_tok' varies per layer"):
        int_field({"num_experts_per_tok": [8, 4]}, "num_experts_per_tok", "x")
    with pytest.raises(SpecError, match="x: missing field 'hidden_size'"):
        int_field({}, "hidden_size", "x")


def test_mlp_layer_types_name_the_dense_layers():
    config = {"mlp_layer_types": ["dense", "sparse", "dense"], "first_k_dense_replace": 0}
    assert dense_layers(config, "exaone_moe", 3) == (0, 2)  # the list wins over first_k_dense_replace
    with pytest.raises(SpecError, match="MLP type 'hash_moe'"):
        dense_layers({"mlp_layer_types": ["dense", "hash_moe"]}, "x", 2)
    with pytest.raises(SpecError, match="lists 1 layers for num_hidden_layers 2"):
        dense_layers({"mlp_layer_types": ["dense"]}, "x", 2)


def test_dense_prefix_is_what_transformers_builds_without_mlp_layer_types():
    # Beam and Hy3 ignore first_k_dense_replace: three (Beam) or one (Hy3) leading dense layers
    assert dense_layers({"first_k_dense_replace": 5}, "beam", 6) == (0, 1, 2)
    assert dense_layers({}, "hy_v3", 4) == (0,)


def test_kda_shape_reads_the_checkpoint_nesting_then_the_flat_fields_then_the_attention_heads():
    from rooftop.models.hf_mixers import linear_attention

    nested = {"linear_attn_config": {"num_heads": 16, "head_dim": 64, "short_conv_kernel_size": 3}}
    kda = linear_attention({**nested, "linear_num_heads": 32, "linear_head_dim": 128}, "kimi_linear", "x")
    assert (kda.kind, kda.k_heads, kda.v_head_dim, kda.conv_kernel, kda.gate_rank) == ("kda", 16, 64, 3, 64)
    ling = linear_attention(
        {"num_attention_heads": 32, "head_dim": 128, "short_conv_kernel_size": 4}, "bailing_hybrid", "x"
    )
    assert (ling.v_heads, ling.k_head_dim, ling.gate_rank) == (32, 128, 0)  # full-rank gates
    with pytest.raises(SpecError, match="x: missing field 'linear_num_heads'"):
        linear_attention({}, "bailing_hybrid", "x")
