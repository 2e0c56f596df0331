"""Per-kind attention shapes, KV sharing, Gemma 4's MoE block and per-layer inputs (models/layouts.py).

The real files are tests/data/configs/gemma-4-moe (google/gemma-4-26B-A4B), gemma-4-31b
(nvidia/Gemma-4-31B-IT-NVFP4, Gemma 4 31B's layout) and mimo-v2 (XiaomiMiMo/MiMo-V2-Flash); their
parameter counts against transformers are in test_real_configs.py. KV bytes are written out by
hand at bf16 (2 B an element).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from rooftop.errors import SpecError
from rooftop.models.hf_config import load_config_file, spec_from_config
from rooftop.models.layouts import layout_fields
from rooftop.models.mixers import AttentionShape, KVGroup
from rooftop.models.spec import ModelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"
# Gemma 4 E2B's text decoder as its published text_config shapes it (35 layers, four sliding to one
# full, the last 20 reading the cache of layers 13 and 14, per-layer inputs of 256, double-wide MLPs
# on the shared layers). Written out, not vendored: no copy of the file was found in a permissively
# licensed repository; its count is checked against transformers below when it is importable.
E2B_TEXT = {
    "model_type": "gemma4_text",
    "hidden_size": 1536,
    "num_hidden_layers": 35,
    "intermediate_size": 6144,
    "num_attention_heads": 8,
    "num_key_value_heads": 1,
    "head_dim": 256,
    "global_head_dim": 512,
    "vocab_size": 262144,
    "vocab_size_per_layer_input": 262144,
    "hidden_size_per_layer_input": 256,
    "num_kv_shared_layers": 20,
    "use_double_wide_mlp": True,
    "attention_k_eq_v": False,
    "enable_moe_block": False,
    "sliding_window": 512,
    "tie_word_embeddings": True,
    "max_position_embeddings": 131072,
    "layer_types": (["sliding_attention"] * 4 + ["full_attention"]) * 7,
}


def test_gemma4_26b_a4b_kv_bytes_per_token_by_layer_kind():
    spec = load_config_file(CONFIGS / "gemma-4-moe")
    # 25 sliding layers: 8 KV heads of 256, keys and values: 2 x 8 x 256 = 4,096 elements = 8,192 B.
    # 5 full layers (attention_k_eq_v): 2 KV heads of 512 (global_head_dim). No v_proj, but the
    # cache holds keys (normed with a weight, rotated) and values (normed without one) apart:
    # 2 x 2 x 512 = 2,048 elements = 4,096 B (one tensor would be 2,048 B).
    assert spec.attention(0) == AttentionShape(16, 8, 256)
    assert spec.attention(5) == AttentionShape(16, 2, 512, k_eq_v=True)
    assert spec.kv_groups() == (KVGroup(1024, 25, 8, 4096), KVGroup(0, 5, 2, 2048))
    # per token: 25 x 8,192 + 5 x 4,096 = 204,800 + 20,480 = 225,280 B
    assert spec.kv_bytes_per_token(2) == 225_280
    # one sequence at 32,768 tokens: the sliding layers keep their last 1,024:
    # 25 x 1,024 x 8,192 + 5 x 32,768 x 4,096 = 209,715,200 + 671,088,640 = 880,803,840 B
    # (every layer at 32,768: 32,768 x 225,280 = 7,381,975,040 B, 8.4x)
    assert spec.kv_elements_per_sequence(32_768) * 2 == 880_803_840


def test_gemma4_31b_kv_bytes_per_token():
    spec = load_config_file(CONFIGS / "gemma-4-31b")
    # 50 sliding layers: 2 x 16 KV heads x 256 = 8,192 elements = 16,384 B; 10 full layers (k_eq_v):
    # 2 x 4 x 512 = 4,096 elements = 8,192 B. 50 x 16,384 + 10 x 8,192 = 819,200 + 81,920 = 901,120 B
    assert spec.kv_groups() == (KVGroup(1024, 50, 16, 8192), KVGroup(0, 10, 4, 4096))
    assert spec.kv_bytes_per_token(2) == 901_120
    assert spec.moe is None and spec.norms_per_layer == 4  # dense: no MoE block, no per-layer inputs


def test_gemma4_moe_block_runs_beside_the_dense_mlp():
    spec = load_config_file(CONFIGS / "gemma-4-moe")
    assert spec.moe is not None and spec.moe.router_scales and spec.moe_layers == 30
    assert spec.ffn_kind(0) == "dense+moe" and spec.norms_per_layer == 7  # 4 + the block's 3
    # per layer: dense MLP 3 x 2816 x 2112 = 17,842,176; 128 experts x 3 x 2816 x 704 = 761,266,176;
    # router 2816 x 128 + scale 2816 + per-expert scale 128 = 363,392 -> 779,471,744
    assert spec.ffn_params(0) == 779_471_744
    # active: the dense MLP and 8 experts: 17,842,176 + 8 x 5,947,392 + 363,392 = 65,784,704
    assert spec.ffn_params(0, active=True) == 65_784_704


def test_gemma4_e2b_kv_sharing_and_per_layer_inputs():
    spec = spec_from_config(E2B_TEXT, "gemma-4-e2b")
    assert spec.kv_shared_layers == 20 and spec.is_kv_shared(15) and not spec.is_kv_shared(14)
    # the 15 layers that cache: 12 sliding (1 KV head x 256, keys and values: 512 elements = 1,024 B)
    # and 3 full (1 x 512 x 2 = 1,024 elements = 2,048 B); the 20 shared layers store nothing:
    # 12 x 1,024 + 3 x 2,048 = 18,432 B a token (unshared: 28 x 1,024 + 7 x 2,048 = 43,008 B)
    assert spec.kv_groups() == (KVGroup(512, 12, 1, 512), KVGroup(0, 3, 1, 1024))
    assert spec.kv_bytes_per_token(2) == 18_432
    assert (spec.ffn_width(14), spec.ffn_width(15)) == (6144, 12288)  # double-wide on shared layers
    # embedding 262,144 x 1,536 = 402,653,184; per-layer table 262,144 x 35 x 256 = 2,348,810,240,
    # its projection 1,536 x 8,960 = 13,762,560 and norm 256, per layer gate + projection
    # 2 x 1,536 x 256 = 786,432 (x 35 = 27,525,120). Attention: sliding 2 x 1,536 x 2,048 +
    # 2 x 1,536 x 256 + q/k norms 512 = 7,078,400 (x 12); full 2 x 1,536 x 4,096 + 2 x 1,536 x 512 +
    # 1,024 = 14,156,800 (x 3); shared layers keep q, o and q_norm: 6,291,712 (x 16), 12,583,424
    # (x 4) -> 278,412,288. MLP 15 x 3 x 1,536 x 6,144 + 20 x 3 x 1,536 x 12,288 = 1,557,135,360.
    # Norms 35 x 5 x 1,536 + 1,536 = 270,336
    assert spec.per_layer_input_params == 2_348_810_240 + 13_762_560 + 256 + 27_525_120
    assert spec.param_count() == 4_628_569_344


def test_gemma4_e2b_count_equals_transformers(tmp_path):
    pytest.importorskip("transformers")
    script = CONFIGS.parents[2] / "scripts" / "count_config_params.py"
    module_spec = importlib.util.spec_from_file_location("count_e2b", script)
    assert module_spec and module_spec.loader
    module = importlib.util.module_from_spec(module_spec)
    sys.modules["count_e2b"] = module
    module_spec.loader.exec_module(module)
    (tmp_path / "config.json").write_text(json.dumps(E2B_TEXT), encoding="utf-8")
    assert module.count(tmp_path / "config.json")["params"] == 4_628_569_344


def test_gemma4_wrapper_with_an_audio_tower_is_refused_its_text_config_is_not():
    wrapper = {"model_type": "gemma4", "text_config": E2B_TEXT, "audio_config": {"model_type": "gemma4_audio"}}
    with pytest.raises(SpecError, match="'audio_config' announces an audio tower"):
        spec_from_config(wrapper, "e2b")
    assert spec_from_config(E2B_TEXT, "e2b").layers == 35


def test_gemma4_full_layers_keep_the_kv_heads_without_k_eq_v():
    # transformers reads num_global_key_value_heads only with attention_k_eq_v; without it the full
    # layers have v_proj and num_key_value_heads heads (of global_head_dim)
    spec = spec_from_config({**E2B_TEXT, "num_global_key_value_heads": 4, "num_key_value_heads": 2}, "x")
    assert spec.attention(4) == AttentionShape(8, 2, 512)


def test_gemma4_last_layer_is_full_attention_and_default_pattern():
    layer_types = ["sliding_attention"] * 6
    spec = spec_from_config(
        {**E2B_TEXT, "num_hidden_layers": 6, "num_kv_shared_layers": 0, "layer_types": layer_types}, "x"
    )
    assert spec.mixer(5) == "full" and spec.count_mixers("sliding") == 5
    default = {k: v for k, v in E2B_TEXT.items() if k not in ("layer_types", "num_kv_shared_layers")}
    spec = spec_from_config({**default, "num_hidden_layers": 12}, "x")  # sliding_window_pattern 6: 5 to 1
    assert [spec.mixer(i) for i in range(6)] == ["sliding"] * 5 + ["full"]


def test_mimo_v2_per_kind_heads_value_width_and_sinks():
    spec = load_config_file(CONFIGS / "mimo-v2")
    assert spec.attention(0) == AttentionShape(64, 4, 192, 128)  # full: no sinks
    assert spec.attention(1) == AttentionShape(64, 8, 192, 128, sinks=True)
    # sliding layer: q 4096 x 64 x 192 = 50,331,648, k 4096 x 8 x 192 = 6,291,456, v 4096 x 8 x 128 =
    # 4,194,304, o 64 x 128 x 4096 = 33,554,432, sinks 64 -> 94,371,904
    assert spec.attention_params(1) == 94_371_904
    # KV per token: 9 full layers x 4 heads x (192 + 128) = 1,280 elements = 2,560 B; 39 sliding
    # layers x 8 x 320 = 2,560 elements = 5,120 B: 9 x 2,560 + 39 x 5,120 = 23,040 + 199,680 = 222,720 B
    assert spec.kv_groups() == (KVGroup(0, 9, 4, 1280), KVGroup(128, 39, 8, 2560))
    assert spec.kv_bytes_per_token(2) == 222_720
    # at 32,768 tokens: 9 x 32,768 x 2,560 + 39 x 128 x 5,120 = 754,974,720 + 25,559,040 B
    assert spec.kv_elements_per_sequence(32_768) * 2 == 780_533_760


def test_mimo_v2_hybrid_layer_pattern_is_checked():
    raw = json.loads((CONFIGS / "mimo-v2" / "config.json").read_text())
    with pytest.raises(SpecError, match="'hybrid_layer_pattern' must list 48 zeros"):
        spec_from_config({**raw, "hybrid_layer_pattern": [0, 1] * 10}, "x")


def test_layout_fields_leave_other_families_alone():
    assert layout_fields({"hidden_size": 8}, "llama", {"layers": 1}) == {}


def test_spec_checks_attention_shapes_and_kv_sharing():
    base = {"name": "x", "layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "ffn": 128, "vocab": 10}
    with pytest.raises(SpecError, match="attention shape"):
        ModelSpec(**base, attention_shapes=(("full", AttentionShape(4, 3, 16)),))
    with pytest.raises(SpecError, match="kv_shared_layers"):
        ModelSpec(**base, kv_shared_layers=2)


@pytest.mark.parametrize("model_type", ["gemma4_unified", "gemma4_unified_text", "gemma4_unified_assistant"])
def test_gemma4_unified_is_refused_not_read_as_gemma4(model_type):
    # transformers 5.24's default gemma4_unified_text (hidden 2304, 30 layers) counts 3,010,758,400;
    # read as gemma4_text it would be 5,077,177,856, as a Llama 2,939,823,360: neither, so refused
    config = {"model_type": model_type, "hidden_size": 2304, "num_hidden_layers": 30, "num_attention_heads": 8,
              "intermediate_size": 9216, "vocab_size": 262144}  # fmt: skip
    with pytest.raises(SpecError, match="Gemma 4"):
        spec_from_config(config, "x")


def test_mllama_cross_attention_layers_hold_weights_and_no_work():
    # Llama 3.2 11B Vision with every default (MllamaConfig(): image_size 448): transformers 5.24.0
    # builds 10,642,941,475 parameters on the meta device, 867,749,395 of them under vision_model and
    # multi_modal_projector. Each of the 8 cross-attention layers: q, o 4096^2 and k, v 4096 x 1024
    # (41,943,040), q/k norms 2 x 128, the MLP 3 x 4096 x 14336 = 176,160,768, two norms 8,192,
    # two gates -> 218,112,258; x 8 = 1,744,898,064, + the embedding's 8 added rows 8 x 4096 = 32,768.
    spec = spec_from_config({"model_type": "mllama", "text_config": {}, "vision_config": {}}, "mllama")
    assert spec.layers == 32  # the text path: 40 layers less the 8 cross-attention ones
    assert spec.idle_params == 8 * 218_112_258 + 32_768 == 1_744_930_832
    assert spec.vision_params == 867_749_395
    assert spec.param_count() == 10_642_941_475
    assert spec.kv_elements_per_token == 32 * 2 * 8 * 128  # no cache in the cross-attention layers without an image
    assert any("cross-attention layers attend only to an image" in note for note in spec.notes)
    # the layer list is checked: out of range, repeated, or every layer
    for bad in ([40], [3, 3], list(range(40)), "3"):
        with pytest.raises(SpecError, match="'cross_attention_layers' must list distinct layers 0..39"):
            spec_from_config({"model_type": "mllama", "text_config": {"cross_attention_layers": bad}}, "m")
