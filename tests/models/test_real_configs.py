"""Real config.json files of current model families (tests/data/configs, origins in its README).

Each is either counted equal to transformers' meta-device build (within 0.01 %; the expected
counts were written by scripts/count_config_params.py with transformers 5.24.0: parameters only,
buffers excluded, tied weights once) or refused in one line that names the unsupported feature.
The counts are stored, so this test needs no transformers; the last test re-verifies a few
with transformers when it is importable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rooftop.errors import SpecError
from rooftop.models.hf_config import load_config_file, spec_from_config

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"
EXPECTED = json.loads((CONFIGS / "expected_params.json").read_text(encoding="utf-8"))
FAMILIES = sorted(p.parent.name for p in CONFIGS.glob("*/config.json"))
REFUSED = {
    "baichuan": "remote code \\(auto_map\\)",
    "chatglm": "remote code \\(auto_map\\)",
    "qwen-1": "remote code \\(auto_map\\)",
    "deepseek-v4": "compressed sparse attention \\(DeepSeek-V4\\)",
    "qwen2-audio": "'audio_config' announces an audio tower",
    "minicpm3": "no model_type, and auto_map points to remote code \\('configuration_minicpm.MiniCPM3Config'\\)",
}
# Remote-code families transformers cannot build (its entry records the failure): counted by hand
# in the test that names them
HAND_COUNTED = {"internlm", "kimi-k2.5"}


def test_at_least_35_distinct_families_each_counted_or_refused():
    assert set(FAMILIES) == set(EXPECTED)  # every file has transformers' count (or its failure)
    model_types = {json.loads((CONFIGS / f / "config.json").read_text()).get("model_type") for f in FAMILIES}
    assert len(model_types - {None}) == 50  # 59 files of 50 model types (MiniCPM3-4B's names none)
    counted = {f for f in FAMILIES if f not in REFUSED and f not in HAND_COUNTED}
    assert len(counted) == 51 and all("params" in EXPECTED[f] for f in counted)


@pytest.mark.parametrize("family", [f for f in FAMILIES if f not in REFUSED and f not in HAND_COUNTED])
def test_param_count_equals_transformers(family):
    spec = load_config_file(CONFIGS / family)
    expected = EXPECTED[family]
    assert spec.param_count() == pytest.approx(expected["params"], rel=1e-4)
    # text path: exact except DeepSeek-V3's e_score_correction_bias (in the checkpoint, a buffer
    # in transformers 5: 58 MoE layers x 256 = 14,848 more than the meta build's parameters, as in
    # DeepSeek-V3.2; Kimi-K2, DeepSeek-V3's layout through its auto_map: 60 x 384 = 23,040; GLM-5:
    # 75 x 256 = 19,200; MiMo-V2-Flash's router has the same buffer: 47 MoE layers x 256 = 12,032)
    text = expected["params"] - expected.get("vision_params", 0)
    buffers = {"deepseek-v3": 14_848, "deepseek-v3.2": 14_848, "kimi-k2": 23_040, "glm-5-dsa": 19_200}
    buffers["mimo-v2"] = 12_032
    assert spec.param_count(text_only=True) - text == buffers.get(family, 0)


@pytest.mark.parametrize("family", sorted(REFUSED))
def test_refused_in_one_line_naming_the_feature(family):
    with pytest.raises(SpecError, match=REFUSED[family]) as err:
        load_config_file(CONFIGS / family)
    assert "\n" not in str(err.value)


def test_null_refusal_field_does_not_refuse():
    # a full to_dict() dump of Mistral-7B-Instruct-v0.3 carries "cross_attention_hidden_size": null
    raw = json.loads((CONFIGS / "mistral" / "config.json").read_text())
    assert "cross_attention_hidden_size" in raw and raw["cross_attention_hidden_size"] is None
    assert load_config_file(CONFIGS / "mistral").param_count() == 7_248_023_552


def test_starcoder2_ties_its_embeddings_by_default():
    # starcoder2-7b's config has no tie_word_embeddings; transformers' Starcoder2Config defaults it to True
    spec = load_config_file(CONFIGS / "starcoder2")
    assert spec.tied_embeddings
    # per layer: q, o 4608 x 4608 + 4608 = 21,238,272 each; k, v 4608 x 512 + 512 = 2,359,808 each
    # (4 KV heads of 128); c_fc 4608 x 18432 + 18432 = 84,953,088; c_proj 18432 x 4608 + 4608 =
    # 84,939,264; two LayerNorms 4 x 4608 = 18,432 -> 217,106,944. x 32 = 6,947,422,208, + embedding
    # 49152 x 4608 = 226,492,416 (the lm_head shares it) + final LayerNorm 9,216
    assert spec.param_count() == 7_173_923_840  # untied it was 226,492,416 more: 7,400,416,256


def test_smollm3_ties_its_embeddings_by_default():
    # SmolLM3-3B's published config.json (HuggingFaceTB/SmolLM3-3B), its shape fields as they are
    # there: no tie_word_embeddings key, and transformers' SmolLM3Config defaults it to True. Written
    # out here, not vendored: the only copy found on GitHub sits in a repository with no licence.
    config = {
        "architectures": ["SmolLM3ForCausalLM"],
        "model_type": "smollm3",
        "attention_bias": False,
        "mlp_bias": False,
        "hidden_act": "silu",
        "hidden_size": 2048,
        "intermediate_size": 11008,
        "layer_types": ["full_attention"] * 36,
        "max_position_embeddings": 65536,
        "max_window_layers": 28,
        "no_rope_layer_interval": 4,
        "no_rope_layers": [1, 1, 1, 0] * 9,
        "num_attention_heads": 16,
        "num_hidden_layers": 36,
        "num_key_value_heads": 4,
        "sliding_window": None,
        "use_sliding_window": False,
        "vocab_size": 128256,
    }
    spec = spec_from_config(config, "smollm3-3b")
    assert spec.tied_embeddings and spec.notes == ()  # a known family, no longer "read as Llama-style"
    # per layer: q, o 2048 x 2048 = 4,194,304 each; k, v 2048 x 512 = 1,048,576 each (4 KV heads of
    # 128) -> 10,485,760; MLP 3 x 2048 x 11008 = 67,633,152; two RMSNorms 4,096 -> 78,123,008.
    # x 36 = 2,812,428,288, + embedding 128256 x 2048 = 262,668,288 (shared with the lm_head) +
    # final norm 2,048. transformers 5.24.0 counts the same; its checkpoint index says 3,075,098,624
    assert spec.param_count() == 3_075_098_624  # untied it was 262,668,288 more: 3,337,766,912


def test_llava_text_config_gets_llama_defaults():
    # llava-1.5-7b-hf's text_config names only vocab_size, max_position_embeddings and rms_norm_eps:
    # LlamaConfig's defaults fill the rest (4096 wide, 32 layers of 32 heads, MLP 11008)
    spec = load_config_file(CONFIGS / "llava")
    assert (spec.hidden, spec.layers, spec.heads, spec.kv_heads, spec.ffn, spec.vocab) == (
        4096,
        32,
        32,
        32,
        11008,
        32064,
    )
    # text: per layer 4 x 4096^2 = 67,108,864 + MLP 3 x 4096 x 11008 = 135,266,304 + norms 8,192 =
    # 202,383,360; x 32 = 6,476,267,520, + embedding and (untied) lm_head 2 x 32064 x 4096 =
    # 262,668,288 + final norm 4,096 -> 6,738,939,904
    assert spec.param_count(text_only=True) == 6_738_939_904
    # CLIP-L/336: per layer 4 x (1024^2 + 1024) + (1024 x 4096 + 4096) + (4096 x 1024 + 1024) + 2 LayerNorms
    # 4,096 = 12,596,224, x 24 = 302,309,376; embeddings: class 1,024 + patch 3 x 14^2 x 1024 = 602,112 +
    # positions 577 x 1024 = 590,848 + pre-LayerNorm 2,048; post-LayerNorm 2,048 -> 303,507,456.
    # Projector (1024 x 4096 + 4096) + (4096 x 4096 + 4096) = 20,979,712 -> 324,487,168
    assert spec.param_count() - spec.param_count(text_only=True) == 324_487_168
    assert spec.param_count() == 7_063_427_072  # transformers 5.24.0 counts the same


def test_internlm_bias_covers_attention_only():
    # InternLM-7B (remote code): "bias": true puts biases on q, k, v and o; the MLP has none
    spec = load_config_file(CONFIGS / "internlm")
    assert (spec.qkv_bias, spec.o_bias, spec.mlp_bias, spec.tied_embeddings) == (True, True, False, False)
    # per layer: 4 x (4096^2 + 4096) = 67,125,248 + MLP 3 x 4096 x 11008 = 135,266,304 + norms 8,192 =
    # 202,399,744; x 32 = 6,476,791,808, + embedding and lm_head 2 x 103168 x 4096 = 845,152,256 +
    # final norm 4,096. MLP biases would add 2 x 11008 + 4096 = 26,112 a layer (835,584 in all)
    assert spec.param_count() == 7_321_948_160


def test_kimi_k2_5_counts_its_moonvit_tower_beside_kimi_k2s_text_model():
    # moonshotai/Kimi-K2.5: Kimi-K2's text model (DeepSeek-V3's layout through its auto_map) and a
    # MoonViT tower whose sizes the file names as its remote code does (vt_hidden_size...).
    # transformers' AutoModelForCausalLM refuses the wrapper (its entry records that); its own port,
    # Kimi_K25ForConditionalGeneration (5.25.0), built on the meta device from this file with the
    # sizes under the port's names and the text_config as deepseek_v3, counts 1,026,879,353,328:
    # Kimi-K2's 1,026,408,209,408 + the tower and projector 471,143,920 (test_vision.py). rooftop
    # also counts the routers' e_score_correction_bias, a buffer there: 60 MoE layers x 384 = 23,040
    spec = load_config_file(CONFIGS / "kimi-k2.5")
    assert spec.vision_params == 471_143_920
    assert spec.param_count() == 1_026_879_353_328 + 23_040
    assert spec.param_count(text_only=True) == EXPECTED["kimi-k2"]["params"] + 23_040


def test_llama4_shared_expert_and_interleaved_moe_layers():
    scout = load_config_file(CONFIGS / "llama-4-scout")
    maverick = load_config_file(CONFIGS / "llama-4-maverick")
    # Scout: every layer MoE with one shared expert of 8192; the gap was 48 x 3 x 5120 x 8192
    assert scout.moe is not None and scout.moe.shared_experts == 1 and scout.moe_layers == 48
    assert scout.param_count(text_only=True) == 107_769_861_120
    # Maverick: interleave_moe_layer_step 2 -> MoE on odd layers; dense layers use intermediate_size_mlp
    assert maverick.moe_layers == 24 and maverick.ffn == 16384 and maverick.ffn_kind(0) == "dense"


def test_falcon_kv_heads_and_layernorms():
    f7 = load_config_file(CONFIGS / "falcon-7b")
    f40 = load_config_file(CONFIGS / "falcon-40b")
    assert (f7.kv_heads, f7.norms_per_layer, f7.gated_mlp) == (1, 1, False)  # multi_query, parallel_attn
    assert (f40.kv_heads, f40.norms_per_layer) == (8, 2)  # new_decoder_architecture: num_kv_heads, ln_attn+ln_mlp


def test_hybrid_layer_kinds():
    nemo = load_config_file(CONFIGS / "nemotron-h")
    assert (nemo.count_mixers("mamba"), nemo.count_mixers("full"), nemo.count_ffns("dense")) == (54, 10, 54)
    nano = load_config_file(CONFIGS / "nemotron-3-nano")  # Mamba-2, attention and MoE layers, one shared expert
    assert (nano.count_mixers("mamba"), nano.count_mixers("full"), nano.moe_layers) == (23, 6, 23)
    assert nano.moe is not None and (nano.moe.shared_experts, nano.moe.shared_ffn, nano.gated_mlp) == (1, 3712, False)
    nxt = load_config_file(CONFIGS / "qwen3-next")
    assert (nxt.count_mixers("linear"), nxt.count_mixers("full")) == (36, 12)  # full_attention_interval 4


@pytest.mark.parametrize("family", ["gpt-neox", "falcon-40b", "qwen3-next", "gemma-4-moe"])
def test_reverify_with_transformers_when_importable(family):
    # re-verification only: needs transformers + torch (installed in CI); builds on the meta device
    pytest.importorskip("transformers")
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("count", CONFIGS.parents[2] / "scripts" / "count_config_params.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["count"] = module
    spec.loader.exec_module(module)
    assert module.count(CONFIGS / family / "config.json")["params"] == EXPECTED[family]["params"]
