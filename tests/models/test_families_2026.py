"""Families the default-config survey found counted wrong or refused without a reason (2026 rows).

Counts of transformers 5.24.0's meta-device build; the default configs themselves are covered by
test_default_configs.py. The two published configs below are written out, not vendored: the
copies found on GitHub (a model report, a Swift test fixture) sit in repositories whose licence
could not be established. Their shape fields are as published.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rooftop.analytic.decompose import decompose
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import SpecError
from rooftop.models.hf_config import load_config_file, spec_from_config

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"

GLM_4_7_FLASH = {  # zai-org/GLM-4.7-Flash
    "architectures": ["Glm4MoeLiteForCausalLM"],
    "attention_bias": False,
    "hidden_act": "silu",
    "hidden_size": 2048,
    "intermediate_size": 10240,
    "max_position_embeddings": 202752,
    "model_type": "glm4_moe_lite",
    "moe_intermediate_size": 1536,
    "topk_method": "noaux_tc",
    "num_attention_heads": 20,
    "n_group": 1,
    "topk_group": 1,
    "n_routed_experts": 64,
    "n_shared_experts": 1,
    "num_experts_per_tok": 4,
    "first_k_dense_replace": 1,
    "num_hidden_layers": 47,
    "num_key_value_heads": 20,
    "num_nextn_predict_layers": 1,
    "tie_word_embeddings": False,
    "q_lora_rank": 768,
    "kv_lora_rank": 512,
    "qk_nope_head_dim": 192,
    "qk_rope_head_dim": 64,
    "v_head_dim": 256,
    "vocab_size": 154880,
}
HUNYUAN_A13B = {  # tencent/Hunyuan-A13B-Instruct
    "architectures": ["HunYuanMoEV1ForCausalLM"],
    "attention_bias": False,
    "attention_head_dim": 128,
    "hidden_size": 4096,
    "intermediate_size": 3072,
    "model_type": "hunyuan_v1_moe",
    "moe_intermediate_size": [3072] * 32,
    "moe_topk": [8] * 32,
    "num_attention_heads": 32,
    "num_experts": 64,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "num_shared_expert": [1] * 32,
    "tie_word_embeddings": True,
    "use_cla": False,
    "use_mixed_mlp_moe": True,
    "use_qk_norm": True,
    "vocab_size": 128167,
}


def test_glm_4_7_flash_mla_moe_with_a_dense_first_layer():
    spec = spec_from_config(GLM_4_7_FLASH, "glm-4.7-flash")
    assert spec.notes == () and spec.moe is not None and spec.moe.dense_layers == (0,)
    # transformers: 29,943,390,976; rooftop counts the 46 MoE layers' e_score_correction_bias
    # (64 each, stored in the checkpoint, a buffer in transformers 5) as DeepSeek-V3's: 2,944 more
    assert spec.param_count() == 29_943_390_976 + 46 * 64
    assert spec.kv_elements_per_token == 47 * (512 + 64)  # MLA's latent and rope key


def test_hunyuan_a13b_routes_every_layer_with_one_shared_mlp():
    spec = spec_from_config(HUNYUAN_A13B, "hunyuan-a13b")
    assert spec.moe is not None and (spec.moe.experts, spec.moe.top_k, spec.moe.shared_experts) == (64, 8, 1)
    assert spec.moe.dense_layers == () and spec.qk_norm and spec.tied_embeddings
    # transformers (built with head_dim 128: its class reads no attention_head_dim) counts 80,393,183,232:
    # per layer attention 2 x 4096 x 4096 + 2 x 4096 x 1024 + q/k norms 256, router 64 x 4096,
    # 65 MLPs of 3 x 4096 x 3072 (64 experts and the shared one), two norms
    per_layer = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 256 + 64 * 4096 + 65 * 3 * 4096 * 3072 + 2 * 4096
    assert spec.param_count() == 32 * per_layer + 128167 * 4096 + 4096 == 80_393_183_232
    assert spec.param_count(active=True) == 12_747_448_320  # 8 routed + the shared MLP


def test_hunyuan_dense_and_hunyuan_vl_text_have_per_head_qk_norms():
    # HunYuanDenseV1Attention's query_layernorm and key_layernorm (head_dim weights each); rooftop read
    # both types as Llama without them. transformers 5.25.0 (its default head_dim None set to 128):
    # hunyuan_v1_dense 8,859,684,864 and hunyuan_vl 8,139,351,536, both equal to rooftop's now.
    tiny = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16}
    tiny |= {"intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 100, "tie_word_embeddings": True}
    layer = 2 * 64 * 64 + 2 * 64 * 32 + 2 * 16 + 3 * 64 * 128 + 2 * 64  # q/o, k/v, q/k norms, MLP, 2 norms
    for model_type in ("hunyuan_v1_dense", "hunyuan_vl_text"):
        spec = spec_from_config({**tiny, "model_type": model_type}, model_type)
        assert spec.param_count() == 2 * layer + 100 * 64 + 64 == 80_512  # tied head, final norm


def test_per_layer_top_k_that_varies_is_refused():
    with pytest.raises(SpecError, match="'num_experts_per_tok' varies per layer"):
        spec_from_config({**HUNYUAN_A13B, "moe_topk": [8] * 31 + [4]}, "x")


def test_output_gates_post_moe_norm_and_weightless_norms():
    base = {"hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 128}
    llama = spec_from_config({**base, "num_hidden_layers": 1}, "x").attention_params()
    gated = spec_from_config({**base, "num_hidden_layers": 1, "model_type": "beam", "num_experts": 0}, "x")
    assert gated.attention_params() - llama == 64 * 64 + 4 + 2 * 16  # gate_proj, a bias per head, q/k norms
    moe = {**base, "num_hidden_layers": 2, "n_routed_experts": 4, "num_experts_per_tok": 2}
    plain, axk1 = spec_from_config(moe, "x"), spec_from_config({**moe, "model_type": "axk1"}, "x")
    assert axk1.moe is not None and axk1.moe.post_norm and axk1.moe.dense_layers == (0,)  # its default
    assert axk1.ffn_params(1) - plain.ffn_params(1) == 64  # the RMSNorm after the experts
    nano = spec_from_config({**base, "num_hidden_layers": 1, "model_type": "nanochat"}, "x")
    assert nano.attention_params() == llama and nano.norm_params == 0  # q/k norms without weights


def test_gemma_3n_text_counts_altup_laurel_and_matformer_widths():
    # Gemma3nTextConfig()'s defaults are Gemma 3n E4B's text model (its count equals transformers' in
    # test_default_configs). Cut to MatFormer slices of 8,192 in its first 10 layers, the model loses
    # 10 layers x 3 x 2,048 x 8,192 MLP weights: 6,835,235,568 - 503,316,480 = 6,331,919,088, what
    # transformers 5.25 builds on the meta device for intermediate_size=[8192] * 10 + [16384] * 25.
    text = {"model_type": "gemma3n_text", "intermediate_size": [8192] * 10 + [16384] * 25}
    spec = spec_from_config(text, "gemma-3n-mix")
    assert spec.param_count() == 6_331_919_088 and spec.describe()["ffn_layers"] == {"16384": 25, "8192": 10}
    # AltUp: per layer an output scale (2,048), coefficients 4 x 4 + 4 x 16, a router 2,048 x 4; once,
    # 3 + 3 projections of 2,048 x 2,048. LAuReL: 2 x 2,048 x 64 per layer. 35 layers.
    altup = 35 * (2048 + 16 + 64 + 2048 * 4) + 6 * 2048 * 2048
    assert (
        spec.altup_laurel_params == altup + 35 * 2 * 2048 * 64 == 25_527_024 + 9_175_040
    )  # as transformers lists them
    assert spec.kv_elements_per_token == 20 * 2 * 2 * 256  # the last 15 of 35 layers cache nothing
    with pytest.raises(SpecError, match="'intermediate_size' has 3 widths for 35 layers"):
        spec_from_config({**text, "intermediate_size": [8192, 8192, 16384]}, "x")
    with pytest.raises(SpecError, match=r"AltUp needs ≥ 2 streams \(altup_num_inputs is 1\)"):
        spec_from_config({**text, "altup_num_inputs": 1}, "x")


def test_fast_vlm_counts_its_timm_fastvit_by_its_model_args():
    # FastVLM: timm's FastViTHD (fastvit_mci3) re-parameterised for inference, 122,714,208 on the meta
    # device (122,875,584 with its training-time branches), then a biased 3,072 -> 3,584 -> 3,584
    # projector: 3,072 x 3,584 + 3,584 + 3,584² + 3,584 = 23,862,272
    text = {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
            "num_hidden_layers": 2, "intermediate_size": 18944, "vocab_size": 152128}  # fmt: skip
    vision = {"model_type": "timm_wrapper", "architecture": "fastvit_mci3", "hidden_size": 3072}
    config = {"model_type": "fast_vlm", "text_config": text}
    inference = spec_from_config({**config, "vision_config": {**vision, "model_args": {"inference_mode": True}}}, "x")
    assert inference.vision_params == 122_714_208 + 23_862_272
    assert spec_from_config({**config, "vision_config": vision}, "x").vision_params == 122_875_584 + 23_862_272
    with pytest.raises(SpecError, match=r"'fastvit_mci3' with model_args \{'drop_path_rate': 0.1\} is timm code"):
        spec_from_config({**config, "vision_config": {**vision, "model_args": {"drop_path_rate": 0.1}}}, "x")


def test_the_whole_gemma_3n_model_counts_its_timm_vision_and_conformer_audio_towers():
    # Gemma 3n E4B as released: the text model (6,835,235,568), the MobileNet-V5 (294,126,912, timm's
    # count) and a USM conformer audio tower, each tower with an embedder; 7,818,517,072 in all, as
    # transformers 5.25 builds Gemma3nForConditionalGeneration (tests/data/default_configs.json).
    text = {"model_type": "gemma3n_text"}
    vision = {"model_type": "gemma3n_vision", "architecture": "mobilenetv5_300m_enc", "hidden_size": 2048}
    audio = {"model_type": "gemma3n_audio", "hidden_size": 1536, "conf_num_hidden_layers": 12}
    spec = spec_from_config({"model_type": "gemma3n", "text_config": text, "vision_config": vision,
                             "audio_config": audio}, "gemma-3n-e4b")  # fmt: skip
    # audio: convolutions 1x128x3x3 + 128 and 128x32x3x3 + 32 over 128 mel bins (-> 64 -> 32), their
    # 32 x 32 outputs projected to 1,536; 12 blocks of 24 x 1,536² + 9 x 1,536 + 1,536 x 5 + 192
    audio_tower = 1_152 + 128 + 36_864 + 32 + 32 * 32 * 1536 + 12 * (24 * 1536**2 + 9 * 1536 + 1536 * 5 + 192)
    embedders = (128 * 2048 + 2 * 2048 + 2048 * 2048) + (128 * 1536 + 2 * 1536 + 1536 * 2048)
    assert audio_tower == 681_348_640 and embedders == 4_460_544 + 3_345_408
    assert spec.vision_params == 294_126_912 + audio_tower + embedders == 983_281_504
    assert spec.param_count() == 7_818_517_072 and spec.param_count(text_only=True) == 6_835_235_568
    with pytest.raises(SpecError, match="architecture 'mobilenetv5_300m' is timm code rooftop has not counted"):
        spec_from_config(
            {"model_type": "gemma3n", "text_config": text, "vision_config": {"architecture": "mobilenetv5_300m"}}, "x"
        )


def test_bert_style_encoders_and_unknown_layer_types_are_refused_by_name():
    bert = {"hidden_size": 768, "num_attention_heads": 12, "num_hidden_layers": 12, "intermediate_size": 3072}
    with pytest.raises(SpecError, match="'type_vocab_size' announces token-type embeddings"):
        spec_from_config({**bert, "vocab_size": 30522, "type_vocab_size": 2, "model_type": "newbert"}, "x")
    typed = {**bert, "vocab_size": 8, "layer_types": ["full_attention"] * 11 + ["compressed_sparse_attention"]}
    with pytest.raises(SpecError, match="layer type 'compressed_sparse_attention', which rooftop does not model"):
        spec_from_config(typed, "x")


ERNIE_4_5_300B = {  # ERNIE-4.5-300B-A47B's shape, as Ascend MindIE-LLM's ERNIE-MoE router test writes it
    "model_type": "ernie4_5_moe",
    "hidden_act": "silu",
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "num_hidden_layers": 54,
    "vocab_size": 103424,
    "moe_num_experts": 64,
    "moe_num_shared_experts": 0,
    "moe_layer_start_index": 3,
    "moe_layer_end_index": 53,
    "moe_intermediate_size": 3584,
    "moe_k": 8,
    "moe_layer_interval": 1,
    "tie_word_embeddings": True,
}


def test_ernie_4_5_moe_routes_layers_from_its_start_index():
    spec = spec_from_config(ERNIE_4_5_300B, "ernie-4.5-300b")
    assert spec.moe is not None and spec.moe.dense_layers == (0, 1, 2)  # layers 3..53 route
    assert (spec.moe.experts, spec.moe.top_k, spec.moe.shared_experts) == (64, 8, 0)
    attention = 2 * 8192 * 8192 + 2 * 8192 * 1024 + 2 * 8192  # q, o; k, v (8 KV heads of 128); two norms
    dense = 3 * 8192 * 28672
    routed = 64 * 3 * 8192 * 3584 + 64 * 8192 + 64  # experts, the fp32 router, e_score_correction_bias
    total = 54 * attention + 3 * dense + 51 * routed + 103424 * 8192 + 8192  # tied embedding, final norm
    assert spec.param_count() == total == 298_636_913_856  # = transformers 5.24's meta-device build
    assert spec.param_count(active=True) == 47_079_337_152  # "A47B": 8 of 64 experts


def test_ernie_4_5_moe_interval_and_end_index():
    # (i + 1) % 2 == 0 and 3 <= i <= 20: layers 3, 5, ..., 19 route (9 of 28), the other 19 are dense
    config = {**ERNIE_4_5_300B, "num_hidden_layers": 28, "moe_layer_interval": 2, "moe_layer_end_index": 20}
    spec = spec_from_config(config, "x")
    assert spec.moe is not None and set(range(28)) - set(spec.moe.dense_layers) == set(range(3, 20, 2))


def test_laguna_heads_per_layer_kind_and_gates():
    # Laguna-XS.2 (tests/data/configs/laguna): 10 full layers of 48 heads, 30 sliding of 64 (8 KV
    # heads of 128 in both), a softplus gate per head (hidden -> heads), q/k norms per head; layer 0
    # dense, 39 routed: 256 experts of 512, one shared expert of 512, the router and its bias
    spec = load_config_file(CONFIGS / "laguna")
    assert spec.attention(0).heads == 48 and spec.attention(1).heads == 64 and spec.window == 512
    full = 2 * 2048 * 48 * 128 + 2 * 2048 * 1024 + 2 * 128 + 2048 * 48  # q, o; k, v; norms; gate
    sliding = 2 * 2048 * 64 * 128 + 2 * 2048 * 1024 + 2 * 128 + 2048 * 64
    routed = 256 * 3 * 2048 * 512 + 3 * 2048 * 512 + 2048 * 256 + 256
    layers = 10 * full + 30 * sliding + 3 * 2048 * 8192 + 39 * routed + 40 * 2 * 2048
    assert spec.param_count() == layers + 2 * 100352 * 2048 + 2048 == 33_442_617_088  # = transformers
    # per channel ("per-element"): the gate projects to every head's channels, like q_proj
    raw = json.loads((CONFIGS / "laguna" / "config.json").read_text())
    per_channel = spec_from_config({**raw, "gating": "per-element"}, "x")
    assert per_channel.param_count() - spec.param_count() == 10 * 2048 * 48 * 127 + 30 * 2048 * 64 * 127


def test_laguna_refuses_head_counts_that_vary_within_a_kind():
    raw = json.loads((CONFIGS / "laguna" / "config.json").read_text())
    heads = [*raw["num_attention_heads_per_layer"]]
    heads[1] = 32  # a sliding layer of 32 heads among sliding layers of 64
    with pytest.raises(SpecError, match="gives the sliding layers 32 to 64 heads"):
        spec_from_config({**raw, "num_attention_heads_per_layer": heads}, "x")


LONGCAT_FLASH = {  # transformers' LongcatFlashConfig defaults: LongCat-Flash-Chat's shape
    "model_type": "longcat_flash",
    "hidden_size": 6144,
    "ffn_hidden_size": 12288,
    "expert_ffn_hidden_size": 2048,
    "num_layers": 28,
    "num_attention_heads": 64,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "n_routed_experts": 512,
    "zero_expert_num": 256,
    "moe_topk": 12,
    "vocab_size": 131072,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
}


def test_longcat_flash_blocks_and_zero_experts():
    # 28 blocks, each two MLA sublayers and two dense MLPs, the first with the shortcut MoE beside it
    spec = spec_from_config(LONGCAT_FLASH, "longcat-flash")
    assert spec.layers == 56 and spec.ffns[:2] == ("dense+moe", "dense") and spec.moe_layers == 28
    mla = 6144 * 1536 + 1536 + 1536 * 64 * 192 + 6144 * 576 + 512 + 512 * 64 * 256 + 64 * 128 * 6144
    mlp, expert = 3 * 6144 * 12288, 3 * 6144 * 2048
    router = 6144 * (512 + 256)  # the zero experts are scored too
    block = 2 * mla + 2 * mlp + 512 * expert + router + 4 * 6144
    total = 28 * block + 2 * 131072 * 6144 + 6144
    # = transformers' meta build (741,053,585,408) less the gate_up weights it allocates for the 256
    # zero experts of every block (28 × 256 × 2 × 2048 × 6144 = 180,388,626,432), which compute nothing
    assert spec.param_count() == total == 560_664_958_976  # "560 B"
    # 12 slots over 512 + 256 experts: 8 with weights per token (uniform routing); the paper's ~27 B
    assert spec.moe is not None and spec.moe.active_k == 8
    assert spec.param_count() - spec.param_count(active=True) == 28 * (512 - 8) * expert
    assert spec.param_count(active=True) == 27_954_796_544
    # the cache: 56 MLA layers, each the 512 latent + 64 rope key per token
    assert spec.kv_elements_per_token == 56 * 576


MINIMAX_M1 = {  # MiniMax-M1's config.json (remote-code form) as quoted in public repositories
    "model_type": "minimax_m1",
    "auto_map": {"AutoConfig": "configuration_minimax_m1.MiniMaxM1Config"},
    "attn_type_list": [1 if (i + 1) % 8 == 0 else 0 for i in range(80)],  # every 8th layer softmax
    "head_dim": 128,
    "hidden_size": 6144,
    "intermediate_size": 9216,
    "max_position_embeddings": 10240000,
    "num_attention_heads": 64,
    "num_experts_per_tok": 2,
    "num_hidden_layers": 80,
    "num_key_value_heads": 8,
    "num_local_experts": 32,
    "postnorm": True,
    "rotary_dim": 64,
    "shared_intermediate_size": 0,
    "vocab_size": 200064,
}


def test_minimax_m1_lightning_layers():
    spec = spec_from_config(MINIMAX_M1, "minimax-m1")
    assert any("read as 'minimax'" in note for note in spec.notes)
    assert spec.mixers.count("linear") == 70 and spec.attention_layers == 10
    # lightning: q, k, v and the output gate (4 × 6144 × 8192), the norm over 64 × 128, out_proj
    lightning = 4 * 6144 * 8192 + 8192 + 8192 * 6144
    softmax = 2 * 6144 * 8192 + 2 * 6144 * 1024  # q, o; k, v (8 KV heads of 128)
    moe = 32 * 3 * 6144 * 9216 + 6144 * 32
    total = 70 * lightning + 10 * softmax + 80 * (moe + 2 * 6144) + 2 * 200064 * 6144 + 6144
    assert spec.param_count() == total == 456_089_655_296  # = transformers' MiniMaxForCausalLM; "456 B"
    # "45.9 B activated": 2 of 32 experts, without the embedding and lm_head (2 × 200064 × 6144)
    active = spec.param_count(active=True) - 2 * 200064 * 6144
    assert round(active / 1e8) == 459
    # a 64 × 128 × 128 state per lightning layer and sequence; K and V only in the 10 softmax layers
    assert spec.state_elements_per_sequence == 70 * 64 * 128 * 128
    assert spec.kv_elements_per_token == 10 * 2 * 8 * 128


def test_minimax_attn_type_list_is_checked():
    with pytest.raises(SpecError, match="attn_type_list"):
        spec_from_config({**MINIMAX_M1, "attn_type_list": [0, 2] * 40}, "x")


def test_opt_350m_projections_and_post_norm():
    # facebook/opt-350m: 512-wide token embeddings projected to 1024 and back (project_in/out), the
    # lm_head tied to them; post-norm layers (do_layer_norm_before false), so no final norm; a
    # position table of 2048 + 2 rows; q/k/v/out and fc1/fc2 with biases, two LayerNorms a layer
    config = {
        "model_type": "opt",
        "hidden_size": 1024,
        "ffn_dim": 4096,
        "num_hidden_layers": 24,
        "num_attention_heads": 16,
        "word_embed_proj_dim": 512,
        "do_layer_norm_before": False,
        "vocab_size": 50272,
        "max_position_embeddings": 2048,
        "activation_function": "relu",
    }
    spec = spec_from_config(config, "opt-350m")
    layer = 4 * (1024 * 1024 + 1024) + 2 * 1024 * 4096 + 4096 + 1024 + 2 * 2 * 1024
    embeddings = 50272 * 512 + 2050 * 1024 + 2 * 512 * 1024
    assert spec.param_count() == 24 * layer + embeddings == 331_196_416  # = transformers
    w = Workload(phase=Phase.DECODE, batch=4, prompt=1, context=128)
    ops = {op.name: op for op in decompose(spec, w)}
    assert "final_norm" not in ops and float(ops["project_out"].cost.flops) == 2 * 4 * 1024 * 512
    assert float(ops["lm_head"].cost.flops) == 2 * 4 * 512 * 50272


DBRX = {  # databricks/dbrx-instruct's config.json: its shapes nested in attn_config and ffn_config
    "model_type": "dbrx",
    "d_model": 6144,
    "n_heads": 48,
    "n_layers": 40,
    "max_seq_len": 32768,
    "vocab_size": 100352,
    "attn_config": {"clip_qkv": 8, "kv_n_heads": 8, "rope_theta": 500000},
    "ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 4},
    "tie_word_embeddings": False,
}


def test_dbrx_nested_fields():
    # transformers 5.24 cannot build DBRX (its attention config lacks rope_theta): counted by hand
    spec = spec_from_config(DBRX, "dbrx")
    assert (spec.kv_heads, spec.moe.experts, spec.moe.top_k, spec.moe.expert_ffn) == (8, 16, 4, 10752)
    attention = 6144 * (6144 + 2 * 8 * 128) + 6144 * 6144  # Wqkv, out_proj
    experts = 16 * 3 * 6144 * 10752 + 6144 * 16  # w1, v1, w2 per expert; the router
    total = 40 * (attention + experts + 2 * 6144) + 2 * 100352 * 6144 + 6144  # bias-free LayerNorms
    assert spec.param_count() == total == 131_596_523_520  # "132 B total"
    assert spec.param_count(active=True) == total - 40 * 12 * 3 * 6144 * 10752  # "36 B active": 4 of 16
    with pytest.raises(SpecError, match="num_local_experts"):
        spec_from_config({**DBRX, "ffn_config": {**DBRX["ffn_config"], "moe_num_experts": -1}}, "x")


def test_mpt_and_biogpt():
    # MPT-7B's shape: ALiBi (no position parameters), bias-free LayerNorms and projections, a GELU
    # MLP 4 × d_model wide, tied embeddings; with no_bias false every projection and norm has one
    mpt = {"model_type": "mpt", "d_model": 4096, "n_heads": 32, "n_layers": 32, "vocab_size": 50432}
    mpt |= {"max_seq_len": 2048, "expansion_ratio": 4, "no_bias": True, "attn_config": {"alibi": True}}
    layer = 4 * 4096 * 4096 + 2 * 4096 * 16384 + 2 * 4096
    assert spec_from_config(mpt, "mpt-7b").param_count() == 32 * layer + 50432 * 4096 + 4096  # 6.65 B
    biased = spec_from_config({**mpt, "no_bias": False}, "x").param_count() - 32 * layer - 50432 * 4096 - 4096
    assert biased == 32 * (4 * 4096 + 16384 + 4096 + 2 * 4096) + 4096
    # BioGPT's default: a learned position table of 1024 + 2 rows, tied embeddings
    biogpt = {"model_type": "biogpt", "hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24}
    biogpt |= {"num_attention_heads": 16, "vocab_size": 42384, "max_position_embeddings": 1024}
    assert spec_from_config(biogpt, "biogpt").param_count() == 346_763_264  # = transformers


def test_persimmon_and_stablelm_qk_layernorms():
    # Persimmon-8B (transformers' default): q/k LayerNorms over head_dim with a weight and a bias
    # each, biases on qkv, dense and the ReLU² MLP, LayerNorms with biases, an untied lm_head
    config = {"model_type": "persimmon", "hidden_size": 4096, "intermediate_size": 16384, "num_hidden_layers": 36}
    config |= {"num_attention_heads": 64, "vocab_size": 262144, "hidden_act": "relu2", "tie_word_embeddings": False}
    attention = 4096 * 12288 + 12288 + 4096 * 4096 + 4096 + 2 * 2 * 64
    mlp = 2 * 4096 * 16384 + 16384 + 4096
    total = 36 * (attention + mlp + 2 * 2 * 4096) + 2 * 262144 * 4096 + 2 * 4096
    assert spec_from_config(config, "persimmon-8b").param_count() == total == 9_397_175_296  # = transformers
    assert spec_from_config({**config, "qk_layernorm": False}, "x").param_count() == total - 36 * 256
    # StableLM-2-12B's qk_layernorm: one bias-free LayerNorm per head, so weights over every head
    stablelm = {"model_type": "stablelm", "hidden_size": 2560, "intermediate_size": 6912, "num_hidden_layers": 4}
    stablelm |= {"num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 50304, "qk_layernorm": True}
    plain = spec_from_config({**stablelm, "qk_layernorm": False}, "x").param_count()
    assert spec_from_config(stablelm, "x").param_count() - plain == 4 * (32 * 80 + 8 * 80) == 535_488_000 - plain


def test_fuyu_counts_its_patch_projection():
    # Fuyu-8B (transformers' FuyuConfig): Persimmon-8B as text_config, and instead of a vision encoder
    # one biased projection of each 30 × 30 × 3 patch to the 4096-wide text stream
    fuyu = {"model_type": "fuyu", "patch_size": 30, "num_channels": 3, "tie_word_embeddings": False}
    fuyu["text_config"] = {"model_type": "persimmon", "hidden_size": 4096, "intermediate_size": 16384}
    fuyu["text_config"] |= {"num_hidden_layers": 36, "num_attention_heads": 64, "vocab_size": 262144}
    spec = spec_from_config(fuyu, "fuyu-8b")
    assert spec.vision_params == 2700 * 4096 + 4096
    assert spec.param_count() == 9_408_238_592  # = transformers' FuyuForCausalLM


def test_recurrent_gemma_rg_lru_blocks():
    # RecurrentGemma-2B (transformers' default): 26 layers cycling recurrent, recurrent, attention;
    # a recurrent block: x and y projections and the projection back (biased), a 4-tap depthwise
    # convolution with bias, the RG-LRU's two block-diagonal gates (10 blocks of 256) with biases
    # and its recurrence parameter; attention layers with an o_proj bias and a 2048-token window (the
    # default has 10 KV heads, the checkpoint 1); a gated GELU MLP 7680 // 2 wide with biases; tied
    # embeddings
    config = {"model_type": "recurrent_gemma", "hidden_size": 2560, "intermediate_size": 7680}
    config |= {"num_hidden_layers": 26, "num_attention_heads": 10, "num_key_value_heads": 10, "vocab_size": 256000}
    config |= {"lru_width": 2560, "conv1d_width": 4, "attention_window_size": 2048, "attention_bias": False}
    spec = spec_from_config(config, "recurrentgemma-2b")
    assert spec.mixers.count("rglru") == 18 and spec.mixers.count("sliding") == 8 and spec.window == 2048
    w = 2560
    recurrent = 3 * 2560 * w + 2 * w + 2560 + 4 * w + w + 2 * (10 * 256 * 256 + w) + w
    attention = 4 * 2560 * 2560 + 2560
    mlp = 3 * 2560 * 3840 + 2 * 3840 + 2560
    total = 18 * recurrent + 8 * attention + 26 * (mlp + 2 * 2560) + 256000 * 2560 + 2560
    assert spec.param_count() == total == 2_010_263_040  # = transformers
    # per sequence: one state value and 3 conv inputs per channel in each recurrent layer
    assert spec.state_elements_per_sequence == 18 * 4 * 2560


def test_laguna_head_counts_are_bounded():
    raw = json.loads((CONFIGS / "laguna" / "config.json").read_text())
    heads = [*raw["num_attention_heads_per_layer"]]
    heads[0] = 10**12
    with pytest.raises(SpecError, match="must list 40 head counts in 1..65536"):
        spec_from_config({**raw, "num_attention_heads_per_layer": heads}, "x")


def test_dots1_moe_with_qk_norms():
    # rednote's dots.llm1 shape (142 B, 14 B active): DeepSeek-V3's MoE layout (the first layer dense,
    # 128 experts of 1408, top-6, 2 shared) with per-head q/k norms; transformers 5.24's default
    # config cannot build, so the fields are the published ones, counted by transformers here
    config = {"model_type": "dots1", "hidden_size": 4096, "num_hidden_layers": 62, "num_attention_heads": 32}
    config |= {"num_key_value_heads": 32, "head_dim": 128, "intermediate_size": 10944, "moe_intermediate_size": 1408}
    config |= {"n_routed_experts": 128, "n_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 1}
    config |= {"vocab_size": 152064, "tie_word_embeddings": False}
    spec = spec_from_config(config, "dots.llm1")
    assert spec.notes == ()  # a family row, not a Llama-style guess
    assert spec.param_count() == 142_774_373_888  # = transformers' Dots1ForCausalLM (router bias: a buffer)
    assert spec.param_count(active=True) == 14_016_581_120  # "14 B activated"


def test_glm_4_5_q_k_norms_follow_use_qk_norm():
    # GLM-4.5-Air (use_qk_norm false) and GLM-4.5 (true, as GLM-4.6 and 4.7): 96 heads of 128 over
    # a 4096/5120 hidden, q/k/v biases, partial rotary, DeepSeek-style MoE after first_k_dense_replace.
    # transformers 5.24.0's meta-device Glm4MoeForCausalLM: 106,852,245,504 and 352,797,814,784; the
    # norms are Glm4MoeRMSNorm(head_dim) on q and k, 2 x 128 = 256 per layer, x 92 = 23,552.
    air = {"model_type": "glm4_moe", "hidden_size": 4096, "num_hidden_layers": 46, "num_attention_heads": 96}
    air |= {"num_key_value_heads": 8, "head_dim": 128, "attention_bias": True, "partial_rotary_factor": 0.5}
    air |= {"intermediate_size": 10944, "moe_intermediate_size": 1408, "n_routed_experts": 128}
    air |= {"n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 1, "vocab_size": 151552}
    air |= {"use_qk_norm": False, "tie_word_embeddings": False}
    assert spec_from_config(air, "GLM-4.5-Air").param_count() == 106_852_245_504
    full = air | {"hidden_size": 5120, "num_hidden_layers": 92, "intermediate_size": 12288}
    full |= {"moe_intermediate_size": 1536, "n_routed_experts": 160, "first_k_dense_replace": 3}
    spec = spec_from_config(full | {"use_qk_norm": True}, "GLM-4.5")
    assert spec.qk_norm and spec.param_count() == 352_797_814_784
    without = spec_from_config(full, "GLM-4.5 without its norms")
    assert spec.param_count() - without.param_count() == 92 * 2 * 128 == 23_552


def test_glm_4_5v_whole_config_equals_transformers():
    # Glm4vMoeConfig() with the head_dim (128) GLM-4.5V's config gives: GLM-4.5-Air's text model and
    # the GLM-4.1V tower; transformers 5.24.0's meta-device build counts 107,743,695,360. Glm4vConfig()
    # (GLM-4.1V) 10,292,777,472: its text layers have four norms and q/k/v biases (GLM-4's).
    text = {"model_type": "glm4v_moe_text", "hidden_size": 4096, "num_hidden_layers": 46, "num_attention_heads": 96}
    text |= {"num_key_value_heads": 8, "head_dim": 128, "attention_bias": True, "intermediate_size": 10944}
    text |= {"moe_intermediate_size": 1408, "n_routed_experts": 128, "n_shared_experts": 1, "num_experts_per_tok": 8}
    text |= {"first_k_dense_replace": 1, "vocab_size": 151424, "tie_word_embeddings": False}
    spec = spec_from_config({"model_type": "glm4v_moe", "text_config": text, "vision_config": {}}, "GLM-4.5V")
    assert spec.vision_params == 892_498_432 and spec.param_count() == 107_743_695_360
    text = {"model_type": "glm4v_text", "hidden_size": 4096, "num_hidden_layers": 40, "num_attention_heads": 32}
    text |= {"num_key_value_heads": 2, "intermediate_size": 13696, "vocab_size": 151552, "attention_bias": True}
    spec = spec_from_config({"model_type": "glm4v", "text_config": text, "vision_config": {}}, "GLM-4.1V")
    assert spec.param_count() == 10_292_777_472


def test_mamba_only_models_have_no_attention_and_no_mlp():
    # MambaConfig() (Mamba-1, 768 wide, 32 layers, vocabulary 50,280, tied): per layer in_proj 768 x 3072
    # = 2,359,296, conv 1536 x 4 + 1536 = 7,680, x_proj 1536 x (48 + 2 x 16) = 122,880, dt_proj 48 x 1536
    # + 1536 = 75,264, A_log 1536 x 16 = 24,576, D 1,536, out_proj 1536 x 768 = 1,179,648, its norm 768
    # -> 3,771,648, x 32 = 120,692,736; embedding 38,615,040 and the final norm: 159,308,544 (transformers
    # 5.24.0's count; Falcon-Mamba's B/C/dt norms have no weights: the same)
    for kind in ("mamba", "falcon_mamba"):
        spec = spec_from_config(
            {"model_type": kind, "hidden_size": 768, "num_hidden_layers": 32, "vocab_size": 50280}, kind
        )
        assert spec.param_count() == 32 * 3_771_648 + 38_615_040 + 768 == 159_308_544
    # Mamba2Config() (Codestral Mamba's shape): 128 heads of 64, 8 groups of state 128: in_proj 4096 x
    # (2 x 8192 + 2 x 8 x 128 + 128) = 76,021,760, conv (8192 + 2048) x 4 + 10,240 = 51,200, dt_bias,
    # A_log, D 384, gated norm 8,192, out_proj 8192 x 4096 = 33,554,432, its norm 4,096 -> 109,640,064,
    # x 64 = 7,016,964,096; untied embedding and head 2 x 32768 x 4096 + the final norm: 7,285,403,648
    config = {"model_type": "mamba2", "hidden_size": 4096, "num_hidden_layers": 64, "vocab_size": 32768}
    spec = spec_from_config(config, "mamba2")
    assert spec.param_count() == 64 * 109_640_064 + 2 * 32768 * 4096 + 4096 == 7_285_403_648
    assert spec.attention_layers == 0 and spec.kv_elements_per_token == 0 and "heads" not in spec.describe()
    # the state: 8192 x 128 per layer and a 3-input window of the 10,240 conv channels
    assert spec.state_elements_per_sequence == 64 * (8192 * 128 + 10240 * 3)
    ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=4, context=1024))}
    assert not any("attn_score" in n or "gate_proj" in n for n in ops) and "ssm_in_proj" in ops
    # tensor parallelism splits the SSM heads (the attention heads are a placeholder: no divisibility check)
    split = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=4, context=1024, tp=2))}
    assert float(split["ssm_in_proj"].cost.flops) == float(ops["ssm_in_proj"].cost.flops) / 2


def test_lara_mini_gated_deltanet_sliding_and_full_layers():
    # LaraMiniConfig() (transformers 5.24.0): 14 gated DeltaNet (L), 13 sliding (S, window 512) and 7 full (F)
    # layers, q/k-normed attention without an output gate, 128 experts of 512 (top-4) and an ungated
    # shared expert; the meta-device build counts 7,281,684,672
    kinds = {"L": "linear_attention", "S": "sliding_attention", "F": "full_attention"}
    config = {"model_type": "lara_mini", "hidden_size": 1024, "num_hidden_layers": 34, "num_attention_heads": 16}
    config |= {"num_key_value_heads": 4, "head_dim": 128, "vocab_size": 151936, "sliding_window": 512}
    config |= {"layer_types": [kinds[c] for c in "LSLF" + "SLSLF" * 6]}
    config |= {"num_experts": 128, "num_experts_per_tok": 4, "moe_intermediate_size": 512}
    config |= {"shared_expert_intermediate_size": 512, "linear_num_key_heads": 8, "linear_num_value_heads": 16}
    config |= {"linear_key_head_dim": 128, "linear_value_head_dim": 128, "tie_word_embeddings": True}
    spec = spec_from_config(config, "lara-mini")
    assert spec.param_count() == 7_281_684_672
    assert (spec.count_mixers("linear"), spec.count_mixers("sliding"), spec.count_mixers("full")) == (14, 13, 7)
    assert spec.qk_norm and not spec.attn_output_gate and spec.notes == ()


def test_command_r_plus_q_k_layernorms_over_every_head():
    # Command R+ (c4ai-command-r-plus's published shape): use_qk_norm adds CohereLayerNorm((heads, head_dim))
    # on q and k, bias-free: (96 + 8) x 128 = 13,312 per layer, x 64 = 851,968. transformers 5.24.0's
    # meta-device build: 103,810,674,688 with them, 103,809,822,720 without.
    plus = {"model_type": "cohere", "hidden_size": 12288, "num_hidden_layers": 64, "num_attention_heads": 96}
    plus |= {"num_key_value_heads": 8, "intermediate_size": 33792, "vocab_size": 256000, "use_qk_norm": True}
    spec = spec_from_config(plus, "command-r-plus")
    assert spec.qk_norm and spec.param_count() == 103_810_674_688
    without = spec_from_config({**plus, "use_qk_norm": False}, "command-r")
    assert spec.param_count() - without.param_count() == 64 * (96 + 8) * 128 == 851_968


# transformers 5.25.0's new decoders at their default configs (tests/data/default_configs.json; Kolibri 1.1,
# refused by name, is checked there)
def _default(model_type):
    stored = json.loads((CONFIGS.parent / "default_configs.json").read_text(encoding="utf-8"))
    return stored["counted"][model_type]["config"]


def test_ergo_relu2_experts_with_their_own_norms_and_residual_gates():
    spec = spec_from_config(_default("ergo"), "ergo")
    h, e = 8192, 256
    attention = h * (64 + 2 * 8) * 128 + h * h + 2 * 128  # fused qkv, o_proj, q/k norms per head
    norms = 4 * h + 2 * h  # four RMSNorms and two residual gates of a weight per channel
    routed = e * 2 * h * 4096 + e * h  # up and down per expert (no gate), a norm per expert
    moe = routed + h * e + 2 * h * 8192 + h  # the router, the shared expert and its norm
    dense = 2 * h * 32768  # the first layer: first_dense_intermediate_size wide
    embeddings = 2 * 262144 * h + h  # untied, and the final norm
    total = attention * 64 + norms * 64 + dense + 63 * moe + embeddings
    assert spec.param_count() == total == 1_105_550_917_632  # = transformers 5.25.0's meta build
    w = Workload(phase=Phase.DECODE, batch=4, context=1024)
    ops = {op.name: op for op in decompose(spec, w)}
    # each token's 8 experts' outputs are normalised: 4 tokens x 8 rows of 8192 in each of 63 layers
    assert ops["experts_norm"].count == 63 and float(ops["experts_norm"].cost.act_in_bytes) == 4 * 8 * h * 2
    assert ops["experts_down"].cost.flops == ops["experts_gate_up"].cost.flops  # no gate: up only


def test_minicpm5_moe_gates_attention_and_param2_normalises_q_and_k():
    minicpm = spec_from_config(_default("minicpm5_moe"), "minicpm5_moe")
    llama = spec_from_config({**_default("minicpm5_moe"), "model_type": "llama"}, "llama")
    # q_gate_proj doubles q_proj: 2048 -> 2 x 32 x 128, one sigmoid gate per channel of the output
    assert minicpm.param_count() - llama.param_count() == 28 * 2048 * 32 * 128 == 234_881_024
    assert minicpm.param_count() == 15_002_552_320  # = transformers 5.25.0
    param2 = spec_from_config(_default("param2moe"), "param2moe")
    no_norms = spec_from_config({**_default("param2moe"), "use_qk_norm": False}, "param2moe")
    assert param2.param_count() - no_norms.param_count() == 21 * 2 * 64 == 2_688
    assert param2.param_count() == 17_151_124_096  # = transformers 5.25.0 (GLM-4.5's classes)


STEP3P5_TEXT = {  # Step3p7TextConfig's defaults (transformers 5.25.0): Step 3.7's text model
    "model_type": "step3p5",
    "hidden_size": 4096,
    "intermediate_size": 11264,
    "num_hidden_layers": 45,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 128815,
    "max_position_embeddings": 128000,
    "n_routed_experts": 288,
    "num_experts_per_tok": 8,
    "moe_intermediate_size": 1280,
    "share_expert_dim": 1280,
    "tie_word_embeddings": False,
}


def test_step3p5_gate_per_head_qk_norms_and_a_shared_expert():
    spec = spec_from_config(STEP3P5_TEXT, "step3p5")
    h = 4096
    # q and o (64 heads of 128), k and v (8 KV heads), g_proj (a sigmoid gate per head), q/k norms
    attention = 2 * h * 64 * 128 + 2 * h * 8 * 128 + h * 64 + 2 * 128
    norms = 2 * h
    dense = 3 * h * 11264  # layers 0-2 (no mlp_layer_types, no moe_layers_enum)
    moe = 288 * 3 * h * 1280 + 288 * h + 3 * h * 1280  # routed experts, router, share_expert_dim's expert
    embeddings = 2 * 128815 * h + h  # untied, and the final norm
    total = 45 * (attention + norms) + 3 * dense + 42 * moe + embeddings
    assert spec.param_count() == total == 195_843_833_088  # = transformers 5.25.0's meta build
    # the hub's spelling: attribute_map names, MTP-padded layer_types, 96 heads in the sliding layers
    hub = {k: v for k, v in STEP3P5_TEXT.items() if k not in ("num_key_value_heads", "n_routed_experts")}
    hub |= {
        "num_attention_groups": 8,
        "moe_num_experts": 288,
        "moe_layers_enum": ",".join(str(i) for i in range(3, 45)),
        "num_nextn_predict_layers": 3,
        "layer_types": (["full_attention"] + ["sliding_attention"] * 3) * 12,
        "sliding_window": 512,
        "attention_other_setting": {"num_attention_heads": 96, "num_attention_groups": 8, "head_dim": 128},
    }
    sliding = 33  # of the first 45 layer_types: 11 groups of 1 full and 3 sliding, then 1 full (MTP: 3 more)
    extra = sliding * (2 * h * 32 * 128 + h * 32)  # 32 more heads: q, o and their gates
    assert spec_from_config(hub, "step3p5").param_count() == total + extra
