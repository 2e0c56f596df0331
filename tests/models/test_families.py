"""Per-family layer layouts and refusals (models/families.py, models/refusals.py)."""

import pytest

from rooftop.models.families import auto_config_family
from rooftop.models.layer_kinds import layer_kinds
from rooftop.models.refusals import refusal


def test_sliding_window_patterns():
    assert layer_kinds({"sliding_window": 4096, "sliding_window_pattern": "LLLG"}, "exaone4", 8)[0] == [
        *["sliding"] * 3,
        "full",
        *["sliding"] * 3,
        "full",
    ]
    gemma3 = layer_kinds({"sliding_window": 512, "sliding_window_pattern": 6}, "gemma3_text", 12)[0]
    assert [i for i, k in enumerate(gemma3) if k == "full"] == [5, 11]
    assert layer_kinds({"sliding_window": 4096}, "gemma2", 4)[0] == ["sliding", "full", "sliding", "full"]
    assert layer_kinds({"sliding_window": 4096}, "mistral", 2)[0] == ["sliding", "sliding"]
    assert layer_kinds({"sliding_window": None}, "mistral", 2)[0] == ["full", "full"]


def test_qwen2_window_only_when_enabled():
    base = {"sliding_window": 131072, "max_window_layers": 2}
    assert layer_kinds(base, "qwen2", 3)[0] == ["full"] * 3
    assert layer_kinds({**base, "use_sliding_window": True}, "qwen2", 3)[0] == ["full", "full", "sliding"]


def test_llama4_chunks_and_layer_types():
    assert layer_kinds({"attention_chunk_size": 8192}, "llama4_text", 4)[0] == ["chunked"] * 3 + ["full"]
    types = {"layer_types": ["linear_attention", "full_attention"]}
    assert layer_kinds(types, "qwen3_5_text", 2)[0] == ["linear", "full"]


def test_hybrid_layouts():
    mixers, ffns = layer_kinds({"hybrid_override_pattern": "M-*E"}, "nemotron_h", 4)
    assert (mixers, ffns) == (["mamba", "none", "full", "none"], ["none", "dense", "none", "moe"])
    mixers, ffns = layer_kinds({"attn_layer_period": 4, "attn_layer_offset": 2}, "jamba", 4)
    assert mixers == ["mamba", "mamba", "full", "mamba"] and ffns == ["dense", "moe", "dense", "moe"]


@pytest.mark.parametrize(
    ("config", "model_type", "expected"),
    [
        ({"cross_attention_hidden_size": None}, "mistral", None),  # present but null: not a refusal
        ({"cross_attention_hidden_size": 4096}, "mistral", "cross-attention"),
        ({"ssm_state_size": 16}, "llama", "state-space"),
        ({"ssm_state_size": 16}, "nemotron_h", None),
        ({"auto_map": {"AutoModelForCausalLM": "x.Y"}}, "baichuan", "remote code"),
        ({"auto_map": {"AutoModelForCausalLM": "x.Y"}}, "llama", None),
        ({"cross_attention_layers": [3]}, "llama", "cross-attention layers"),  # only mllama's layout reads it
        ({"cross_attention_layers": [3]}, "mllama_text_model", None),
        ({}, "blip_text_model", "BERT layers with cross-attention to the image (BLIP)"),  # not Llama
        ({"vq_config": {"embed_dim": 256}}, "chameleon", "a VQ-VAE image tokenizer (Chameleon, Emu3)"),
        ({"auto_map": {"AutoConfig": "c.C"}}, "", "no model_type, and auto_map points to remote code ('c.C')"),
        ({"auto_map": {"AutoConfig": "c\nC"}}, "", "remote code ('c\\nC'), which"),  # repr: one line
    ],
)
def test_refusals(config, model_type, expected):
    why = refusal(config, model_type)
    assert why is None if expected is None else expected in (why or "")


def test_a_remote_config_class_transformers_ships_names_its_family():
    # Kimi-K2's "kimi_k2" loads configuration_deepseek.DeepseekV3Config: DeepSeek-V3's layout
    kimi = {"auto_map": {"AutoConfig": "configuration_deepseek.DeepseekV3Config"}}
    assert auto_config_family(kimi, "kimi_k2") == "deepseek_v3"
    assert auto_config_family(kimi, "llama") is None  # a family rooftop knows keeps its own layout
    assert auto_config_family({"auto_map": {"AutoConfig": "x.OwnConfig"}}, "own") is None
    assert auto_config_family({"auto_map": "x.OwnConfig"}, "own") is None


def test_norm_params_per_family():
    from rooftop.models.hf_config import spec_from_config

    base = {
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 128,
        "vocab_size": 100,
        "tie_word_embeddings": False,
    }
    llama = spec_from_config({**base, "model_type": "llama"}, "x").param_count()
    # OLMo-1: LayerNorms without weights -> 2 layers x 2 norms + final norm = 5 x 64 fewer
    assert spec_from_config({**base, "model_type": "olmo"}, "x").param_count() == llama - 5 * 64
    # Cohere: one bias-free LayerNorm per (parallel) layer -> 2 x 64 fewer
    assert spec_from_config({**base, "model_type": "cohere"}, "x").param_count() == llama - 2 * 64
    # Seed-OSS: attention_bias on q/k/v only (attention_out_bias false): 64 + 2 x 64 per layer
    seed = spec_from_config({**base, "model_type": "seed_oss", "attention_bias": True}, "x")
    assert seed.param_count() == llama + 2 * (3 * 64)


def test_nemotron_h_layers_block_type():
    # transformers 5 writes layers_block_type instead of hybrid_override_pattern
    config = {"layers_block_type": ["mamba", "moe", "attention", "mlp"]}
    assert layer_kinds(config, "nemotron_h", 4) == (
        ["mamba", "none", "full", "none"],
        ["none", "moe", "none", "dense"],
    )


def test_layout_fields_zero_offset_and_bad_values():
    from rooftop.errors import SpecError

    # an offset of 0 is a real value, not "absent"
    mixers, _ = layer_kinds({"attn_layer_period": 2, "attn_layer_offset": 0}, "jamba", 4)
    assert mixers == ["full", "mamba", "full", "mamba"]
    for bad in (0, "two", 1.5, True):
        with pytest.raises(SpecError, match="'attn_layer_period' must be an integer ≥ 1"):
            layer_kinds({"attn_layer_period": bad}, "jamba", 4)


def test_falcon_h1_granite4_bamba_layouts():
    assert layer_kinds({}, "falcon_h1", 2) == (["full+mamba"] * 2, None)
    granite = {"layer_types": ["mamba", "attention", "linear_attention"]}  # transformers 5 spells Mamba both ways
    assert layer_kinds(granite, "granitemoehybrid", 3)[0] == ["mamba", "full", "mamba"]
    assert layer_kinds({"attn_layer_indices": [1]}, "bamba", 3)[0] == ["mamba", "full", "mamba"]


def test_falcon_h1_layer_has_attention_and_mamba_side_by_side():
    from rooftop.models.hf_config import spec_from_config

    config = {
        "model_type": "falcon_h1",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "intermediate_size": 128,
        "vocab_size": 100,
        "mamba_n_heads": 8,
        "mamba_d_head": 8,
        "mamba_d_ssm": 64,
        "mamba_d_state": 16,
        "mamba_n_groups": 1,
    }
    spec = spec_from_config(config, "h1")
    # Mamba-2: in_proj 64 x (2 x 64 + 2 x 16 + 8) = 10,752; conv (64 + 32) x 4 + 96 = 480; out_proj 4096;
    # dt_bias, A_log, D 3 x 8 = 24; no gated norm (mamba_rms_norm false) -> 15,352
    # attention: q 64 x 64 + k, v 2 x 64 x 32 + o 64 x 64 = 12,288
    assert spec.mixer_params(0) == 15_352 + 12_288
    assert spec.attention_layers == 2 and spec.kv_layer_groups() == {0: 2}
    assert spec.state_elements_per_sequence == 2 * (64 * 16 + 96 * 3)


def test_moe_layer_freq_as_a_per_layer_list():
    from rooftop.errors import SpecError
    from rooftop.models.hf_config import spec_from_config

    config = {
        "model_type": "deepseek_v3",
        "hidden_size": 64,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "intermediate_size": 128,
        "moe_intermediate_size": 32,
        "n_routed_experts": 4,
        "num_experts_per_tok": 2,
        "vocab_size": 100,
        "moe_layer_freq": [0, 1, 1],  # MiMo-V2 writes one flag per layer
    }
    assert spec_from_config(config, "x").moe.dense_layers == (0,)
    with pytest.raises(SpecError, match="'moe_layer_freq' must be an integer or 3 zeros and ones"):
        spec_from_config({**config, "moe_layer_freq": [0, 2, 1]}, "x")
