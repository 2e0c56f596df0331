"""Per-``model_type`` facts of Hugging Face configs: defaults and refusals.

``FAMILIES`` holds what differs from a Llama-style decoder (norm, MLP, biases, q/k norms...) and,
under ``fields``, defaults transformers applies to fields a config may omit; ``promote`` lifts
fields a family nests (DBRX's ``attn_config.kv_n_heads``) or names otherwise (Ergo's
``first_dense_intermediate_size``) to the names rooftop reads; ``mtp_padded``: per-layer lists
that may carry one trailing entry per MTP layer (``num_nextn_predict_layers``), dropped as
transformers does;
``dense_prefix`` is the number of leading dense layers transformers builds when a config has no
``mlp_layer_types``, whatever ``first_k_dense_replace`` says; ``drop_fields`` are fields
transformers' class never reads (Hunyuan's per-layer ``moe_intermediate_size``); ``qk_norm_field``
names the config field that switches the per-head q/k norms on (GLM-4.5's ``use_qk_norm``);
``per_layer_ffn``: ``intermediate_size`` may give each layer its own width (Gemma 3n's MatFormer
slices; the layout reads the list, ``ffn`` is the widest); ``linear_kind``
"kda" or "lightning" makes its linear layers Kimi Delta Attention or MiniMax's lightning attention
(``models/hf_mixers.py``). What rooftop does not model is named in ``models/refusals.py``.
Which layer is which is read in ``models/layer_kinds.py``, the family layouts with shapes of their
own in ``models/layouts.py``. Data, not if-chains: a new family is a new row.
"""

from __future__ import annotations

from typing import Any

LLAMA: dict[str, Any] = {}
LAYERNORM_GELU = {"norm": "layer", "gated_mlp": False, "activation": "gelu"}
ALL_BIASES = {"qkv_bias": True, "o_bias": True, "mlp_bias": True}
GEMMA3_TEXT_FIELDS = {
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "vocab_size": 262208,
    "max_position_embeddings": 131072,
    "sliding_window": 4096,
    "sliding_window_pattern": 6,
}
# Gemma4TextConfig's defaults (transformers 5.24.0) for the fields rooftop reads; a config without
# layer_types has five sliding layers to one full (sliding_window_pattern 6), the last one full
GEMMA4_TEXT_FIELDS = {
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "global_head_dim": 512,
    "vocab_size": 262144,
    "max_position_embeddings": 131072,
    "sliding_window": 512,
    "sliding_window_pattern": 6,
    "hidden_size_per_layer_input": 256,
    "vocab_size_per_layer_input": 262144,
}
# Gemma3nTextConfig's defaults (transformers 5.25.0) for the fields rooftop reads: Gemma 3n E4B's
# text model; a config without layer_types has four sliding layers to one full
GEMMA3N_TEXT_FIELDS = {
    "vocab_size": 262400,
    "hidden_size": 2048,
    "intermediate_size": 16384,
    "num_hidden_layers": 35,
    "num_attention_heads": 8,
    "num_key_value_heads": 2,
    "head_dim": 256,
    "max_position_embeddings": 32768,
    "sliding_window": 512,
    "sliding_window_pattern": 5,
    "hidden_size_per_layer_input": 256,
    "vocab_size_per_layer_input": 262144,
    "altup_num_inputs": 4,
    "laurel_rank": 64,
    "num_kv_shared_layers": 15,
}
# MllamaTextConfig's defaults (transformers 5.24.0): Llama 3.2 11B Vision's text model
MLLAMA_TEXT_FIELDS = {
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 40,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
}
# A model of Mamba layers only has no attention heads and no MLP: placeholders the layout never reads
PURE_SSM_FIELDS = {"num_attention_heads": 1, "intermediate_size": 0}
QWEN_HYBRID = {"qk_norm": True, "attn_output_gate": True, "shared_gate": True}
# What transformers' config class gives the shape fields a multimodal wrapper's text_config leaves
# out (llava-1.5-7b's names only vocab_size, max_position_embeddings and rms_norm_eps; Qwen2-Audio's
# leaves out the widths). Applied to a nested text_config only: a top-level config without its
# shapes stays an error. Only fields rooftop reads; absent KV heads (and head_dim) follow the
# heads in both classes. transformers 5.24.0, models/llama/configuration_llama.py (LlamaConfig)
# and models/qwen2/configuration_qwen2.py (Qwen2Config).
TEXT_CONFIG_FIELDS: dict[str, dict[str, int]] = {
    "llama": {
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "vocab_size": 32000,
        "max_position_embeddings": 2048,
    },
    "qwen2": {
        "hidden_size": 4096,
        "intermediate_size": 22016,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "vocab_size": 151936,
        "max_position_embeddings": 32768,
    },
}

FAMILIES: dict[str, dict[str, Any]] = {
    "llama": LLAMA,
    "mistral": LLAMA,
    "ministral": LLAMA,
    "ministral3": LLAMA,
    "mixtral": LLAMA,
    "phi3": LLAMA,
    "qwen2": {"qkv_bias": True, "o_bias": False},
    "qwen2_5_vl": {"qkv_bias": True, "o_bias": False},
    "qwen2_vl_text": {"qkv_bias": True, "o_bias": False},
    "qwen2_5_vl_text": {"qkv_bias": True, "o_bias": False},
    "qwen2_moe": {"qkv_bias": True, "o_bias": False, "shared_gate": True},
    "qwen3": {"qk_norm": True},
    "qwen3_moe": {"qk_norm": True},
    "qwen3_vl_text": {"qk_norm": True},
    "qwen3_vl_moe_text": {"qk_norm": True},
    "minimax_m2": {"qk_norm": True, "qk_norm_full": True},
    "qwen3_next": QWEN_HYBRID,
    "qwen3_5_text": QWEN_HYBRID,
    "qwen3_5_moe_text": QWEN_HYBRID,
    # Lara-mini: Qwen3.5's gated DeltaNet and q/k-normed attention (no output gate) beside sliding
    # layers; its shared expert is always added, without a gate
    "lara_mini": {"qk_norm": True},
    "gemma": {"tied_embeddings": True, "activation": "gelu"},
    "gemma2": {"tied_embeddings": True, "activation": "gelu", "norms_per_layer": 4},
    "gemma3_text": {
        "tied_embeddings": True,
        "activation": "gelu",
        "norms_per_layer": 4,
        "qk_norm": True,
        "fields": GEMMA3_TEXT_FIELDS,
    },
    # Gemma 3n: KV sharing, per-layer inputs, AltUp streams and LAuReL residuals (models/layouts.py)
    "gemma3n_text": {
        "tied_embeddings": True,
        "activation": "gelu",
        "qk_norm": True,
        "per_layer_ffn": True,  # intermediate_size: one width per layer, read by the layout
        "fields": GEMMA3N_TEXT_FIELDS,
    },
    # Gemma 4: per-kind attention shapes, MoE block, KV sharing, per-layer inputs (models/layouts.py)
    "gemma4_text": {
        "tied_embeddings": True,
        "activation": "gelu",
        "qk_norm": True,
        "o_bias": False,
        "fields": GEMMA4_TEXT_FIELDS,
    },
    # MiMo-V2-Flash: sliding layers with their own KV heads and sinks, values narrower than keys
    "mimo_v2_flash": {"o_bias": False},
    "deepseek_v2": LLAMA,
    "deepseek_v3": LLAMA,
    "deepseek_v32": LLAMA,  # DeepSeek-V3 with DSA's indexer (index_topk: ModelSpec.indexer)
    "glm_moe_dsa": LLAMA,  # GLM-5: MLA with DSA's indexer
    "exaone4": {"qk_norm": True},
    "olmo3": {"qk_norm": True, "qk_norm_full": True},
    "glm": {"qkv_bias": True, "o_bias": False},
    "glm4": {"qkv_bias": True, "o_bias": False, "norms_per_layer": 4},
    "glm4v_text": {"qkv_bias": True, "o_bias": False, "norms_per_layer": 4},  # GLM-4.1V's language model
    "glm_ocr_text": {"norms_per_layer": 4},  # GLM-OCR's: GLM-4's norms after attention and MLP
    "gpt_oss": {**ALL_BIASES, "mlp_bias": False, "attn_sinks": True, "expert_bias": True, "router_bias": True},
    "llama4_text": {"shared_experts": 1},
    # Llama 3.2 Vision: Llama layers and cross-attention layers only an image runs (models/layouts.py)
    "mllama_text_model": {"fields": MLLAMA_TEXT_FIELDS},
    "mllama": {"fields": MLLAMA_TEXT_FIELDS},  # a text_config without its own model_type
    "gpt2": {**LAYERNORM_GELU, **ALL_BIASES, "tied_embeddings": True, "learned_positions": True},
    "gpt_bigcode": {**LAYERNORM_GELU, **ALL_BIASES, "tied_embeddings": True, "learned_positions": True},
    "gpt_neox": {**LAYERNORM_GELU, **ALL_BIASES},
    # transformers' Starcoder2Config: tie_word_embeddings = True (starcoder2-7b's config omits the key)
    "starcoder2": {**LAYERNORM_GELU, **ALL_BIASES, "tied_embeddings": True},
    "phi": {**LAYERNORM_GELU, **ALL_BIASES, "norms_per_layer": 1, "lm_head_bias": True},
    "gptj": {**LAYERNORM_GELU, "mlp_bias": True, "norms_per_layer": 1, "lm_head_bias": True},
    "codegen": {**LAYERNORM_GELU, "mlp_bias": True, "norms_per_layer": 1, "lm_head_bias": True},
    "bloom": {**LAYERNORM_GELU, **ALL_BIASES, "tied_embeddings": True, "embed_norm": True},
    "stablelm": {"norm": "layer"},  # StableLM-2-12B's qk_layernorm: one LayerNorm per head (layouts)
    "falcon": {**LAYERNORM_GELU, "tied_embeddings": True},
    "jamba": LLAMA,
    # Mamba, Falcon-Mamba (Mamba-1) and Mamba-2 / Codestral Mamba: every layer a norm and a Mamba
    # mixer, no attention and no MLP (models/layer_kinds.py, hf_mixers.ssm); the heads are a placeholder
    "mamba": {"norms_per_layer": 1, "tied_embeddings": True, "fields": PURE_SSM_FIELDS},
    "falcon_mamba": {"norms_per_layer": 1, "tied_embeddings": True, "fields": PURE_SSM_FIELDS},
    "mamba2": {"norms_per_layer": 1, "fields": PURE_SSM_FIELDS},
    "nemotron_h": {"gated_mlp": False, "activation": "relu2", "norms_per_layer": 1},
    "falcon_h1": LLAMA,
    "granitemoehybrid": {"shared_experts": 1},
    "bamba": LLAMA,
    "olmo": {"norm": "layer", "norm_affine": False},  # OLMo-1: LayerNorms without weights
    "olmo2": {"qk_norm": True, "qk_norm_full": True},
    "olmoe": {"qk_norm": True, "qk_norm_full": True},
    # Command R+: use_qk_norm adds bias-free LayerNorms over every head's channels (CohereLayerNorm)
    "cohere": {
        "norm": "layer",
        "norm_bias": False,
        "norms_per_layer": 1,
        "tied_embeddings": True,
        "qk_norm_field": "use_qk_norm",
        "qk_norm_full": True,
    },
    "cohere2": {"norm": "layer", "norm_bias": False, "norms_per_layer": 1, "tied_embeddings": True},
    "cohere2_moe": {"norm": "layer", "norm_bias": False, "norms_per_layer": 1, "tied_embeddings": True},
    # transformers 5.24's other 2026 rows, each a Llama-style layout plus what its modeling file adds
    # (read as Llama-style they were within 0.01 %; these make them exact): per-head q/k norms,
    # sink logits, and norms after the attention and the MLP (four a layer)
    "mellum": {"qk_norm": True},
    "dots1": {"qk_norm": True},  # rednote's dots.llm1: DeepSeek-V3's MoE layout, Qwen3's attention
    "sarvam_moe": {"qk_norm": True},
    "minimax_m3_vl_text": {"qk_norm": True},
    "flint": {"qk_norm": True, "attn_sinks": True},
    "granite_swa": {"attn_sinks": True},
    "granitemoe_swa": {"attn_sinks": True},
    "hyperclovax": {"norms_per_layer": 4},
    # BitNet b1.58: a norm on the attention output before o_proj (attn_sub_norm, a third norm a layer)
    # and one over the MLP's intermediate width before down_proj (ffn_sub_norm); ReLU², untied
    "bitnet": {"norms_per_layer": 3, "mlp_norm": True, "activation": "relu2"},
    "kolibri1": {"qk_norm": True, "norms_per_layer": 4},
    "seed_oss": {"o_bias": False},
    # SmolLM3Config: tie_word_embeddings = True (SmolLM3-3B's config omits the key). Its NoPE layers
    # (no_rope_layers, no_rope_layer_interval) only skip the rotary embedding, which has no
    # parameters and which rooftop does not model as an operator: they change no count here.
    "smollm3": {"tied_embeddings": True},
    # InternLM (v1, remote code): InternLMConfig's bias (default True) sets q/k/v/o's biases only; its
    # MLP is Llama's, bias-free (the published configuration_internlm.py / modeling_internlm.py)
    "internlm": {"bias_covers_mlp": False, "fields": {"bias": True}},
    "phimoe": {"norm": "layer"},
    "nemotron": {"gated_mlp": False, "activation": "relu2", "norm": "layer"},
    "arcee": {"gated_mlp": False, "activation": "relu2"},
    "cosmos3_edge_text": {"gated_mlp": False, "activation": "relu2"},  # Cosmos 3 Edge: Llama, ReLU² MLP
    # Muse Glimmer: a sigmoid output gate per channel (AFMoE's gate_proj, the width of q_proj), q/k
    # norms without weights, Gemma 2's four norms a layer
    "muse_glimmer_text": {"attn_output_gate": True, "norms_per_layer": 4},
    "granite": LLAMA,
    "granitemoe": LLAMA,
    "ernie4_5": {"tied_embeddings": True},  # Ernie4_5Config: tie_word_embeddings = True
    # ERNIE-4.5 MoE: routed layers by moe_layer_start_index / _end_index / _interval (hf_moe); the
    # router's e_score_correction_bias (one float per expert) is the router_bias; the shared experts
    # are one MLP of moe_intermediate_size x moe_num_shared_experts (the same count as that many)
    "ernie4_5_moe": {"tied_embeddings": True, "router_bias": True},
    # Laguna (poolside): AFMoE-style attention (q/k norms per head) with a head count per layer kind
    # and a softplus output gate (layouts._laguna); a sigmoid router whose e_score_correction_bias is
    # a parameter; one ungated shared expert of shared_expert_intermediate_size
    "laguna": {"qk_norm": True, "router_bias": True, "fields": {"head_dim": 128}},
    # OPT: post- or pre-LayerNorm (do_layer_norm_before), ReLU MLP (fc1, fc2), biases (enable_bias),
    # a learned position table of max_position_embeddings + 2 rows, OPT-350m's 512-wide embeddings
    # projected in and out (word_embed_proj_dim; layouts._opt). BioGPT has the same offset table.
    "opt": {
        "norm": "layer",
        "gated_mlp": False,
        "activation": "relu",
        **ALL_BIASES,
        "learned_positions": True,
        "tied_embeddings": True,
    },
    "biogpt": {**LAYERNORM_GELU, **ALL_BIASES, "learned_positions": True, "tied_embeddings": True},
    # MPT: ALiBi (no position parameters), bias-free LayerNorms and projections (no_bias), a GELU MLP
    # expansion_ratio × d_model wide; attn_config.kv_n_heads for grouped KV heads
    "mpt": {
        "norm": "layer",
        "norm_bias": False,
        "gated_mlp": False,
        "activation": "gelu",
        "tied_embeddings": True,
        "promote": {"attn_config.kv_n_heads": "num_key_value_heads"},
    },
    # DBRX: its shapes nested in attn_config and ffn_config; bias-free LayerNorms; every layer routes
    # (GLU experts w1, v1, w2); Wqkv of grouped KV heads
    "dbrx": {
        "norm": "layer",
        "norm_bias": False,
        "promote": {
            "attn_config.kv_n_heads": "num_key_value_heads",
            "ffn_config.ffn_hidden_size": "moe_intermediate_size",
            "ffn_config.moe_num_experts": "num_local_experts",
            "ffn_config.moe_top_k": "num_experts_per_tok",
        },
    },
    # Persimmon (Adept; Fuyu's language model): LayerNorms, a ReLU² MLP, biases on every projection,
    # LayerNorm q/k norms per head with biases (qk_layernorm, layouts._qk_layernorm)
    "persimmon": {**ALL_BIASES, "norm": "layer", "gated_mlp": False, "activation": "relu2", "qk_norm_bias": True},
    # RecurrentGemma (Griffin): RG-LRU recurrent blocks between windowed MQA layers (layouts), a
    # gated GELU MLP with biases, an o_proj bias, tied embeddings; attention_window_size is its window
    "recurrent_gemma": {
        "o_bias": True,
        "mlp_bias": True,
        "tied_embeddings": True,
        "activation": "gelu",
        "fields": {"attention_window_size": 2048},
    },
    # MiniMax-01 / MiniMax-M1 (transformers' minimax): lightning-attention layers (linear attention
    # with a fixed decay, hf_mixers) between softmax GQA layers, Mixtral's experts
    "minimax": {"linear_kind": "lightning"},
    # LongCat-Flash (Meituan): two MLA sublayers, two dense MLPs and a shortcut MoE with
    # zero-computation experts per block (layouts._longcat)
    "longcat_flash": {},
    # LFM2 (Liquid): short-convolution layers (layouts._lfm2) between GQA layers with a q and a k
    # RMSNorm per head; two norms per layer (operator_norm, ffn_norm), the last norm is named
    # embedding_norm; tied embeddings (the hub's configs write tie_embedding). LFM2-MoE's sigmoid
    # router adds its expert_bias as a buffer, not a parameter (uncounted, as transformers counts).
    "lfm2": {"qk_norm": True, "tied_embeddings": True},
    "lfm2_moe": {"qk_norm": True, "tied_embeddings": True, "fields": {"num_dense_layers": 2}},
    # LFM3: LFM2's convolutions (7 taps), Qwen3-style attention (head_dim 128, o_proj) in full and
    # 256-token sliding layers, a gate per head and sandwich norms (layouts._lfm2)
    "lfm3": {"qk_norm": True, "tied_embeddings": True, "fields": {"conv_L_cache": 7, "sliding_window": 256}},
    # GLM-4.5/4.6/4.7: per-head RMS q/k norms when use_qk_norm (GLM-4.5-Air has none)
    "glm4_moe": {"qkv_bias": True, "o_bias": False, "qk_norm_field": "use_qk_norm"},
    "glm4v_moe_text": {"qkv_bias": True, "o_bias": False},  # GLM-4.5V/4.6V's: GLM-4.5-Air's layers
    # Ergo (Amazon, transformers 5.25.0): ReLU² MLPs without a gate (the leading dense layers
    # first_dense_intermediate_size wide), per-head q/k norms; four norms per layer and two residual
    # gates (a learned weight per channel mixing branch and residual: a norm's weights and pass),
    # counted as six norms; an RMSNorm on each routed expert's output and on the shared expert's.
    # Its full-attention layers have no rotary embedding, which rooftop does not model anyway.
    "ergo": {
        "gated_mlp": False,
        "activation": "relu2",
        "qk_norm": True,
        "norms_per_layer": 6,
        "moe_post_norm": True,
        "expert_norm": True,
        "promote": {"first_dense_intermediate_size": "intermediate_size"},
    },
    # Molmo2 (AllenAI): Qwen3's attention without an o_proj bias (the released configs' qkv_bias
    # is transformers' attention_bias), per-head q/k norms or, with qk_norm_type "olmo", OLMo's
    # over all heads; additional_vocab_size embedding rows (models/layouts.py). Molmo2TextConfig's
    # defaults (transformers 5.25.0)
    "molmo2_text": {
        "qk_norm": True,
        "o_bias": False,
        "promote": {"qkv_bias": "attention_bias"},
        "fields": {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "head_dim": 128,
            "vocab_size": 151936,
            "num_hidden_layers": 36,
            "intermediate_size": 12288,
            "max_position_embeddings": 36864,
        },
    },
    # MiniCPM5-MoE (OpenBMB): Llama attention with a sigmoid output gate per channel (q_gate_proj
    # doubles q_proj), DeepSeek-V3's MoE with one shared expert (transformers 5.25.0)
    "minicpm5_moe": {"attn_output_gate": True},
    # Param2 (BharatGen): GLM-4.5's classes under its own model_type (transformers 5.25.0)
    "param2moe": {"qkv_bias": True, "o_bias": False, "qk_norm_field": "use_qk_norm"},
    "flex_olmo": {"qk_norm": True, "qk_norm_full": True},
    # OLMo Hybrid: gated DeltaNet layers (q/k/v/a/b/g projections: Qwen3-Next's in_proj, split) and
    # OLMo-3 attention layers (q/k norms over all heads, norms after attention and MLP)
    "olmo_hybrid": {"qk_norm": True, "qk_norm_full": True},
    "apertus": {"gated_mlp": False, "activation": "xielu", "qk_norm": True},
    "apertus1p5_text": {"gated_mlp": False, "activation": "xielu", "qk_norm": True},
    # MoE families of transformers 5.24.0: the shared experts' width is moe_intermediate_size x
    # num_shared_experts (one MLP); routers with e_score_correction_bias keep it as a buffer
    "hy_v3": {"qk_norm": True, "dense_prefix": 1, "fields": {"num_shared_experts": 1}},  # Hy3
    "glm4_moe_lite": {"dense_prefix": 1},  # GLM-4.7-Flash: MLA, DeepSeek-V3's MoE
    "exaone_moe": {  # K-EXAONE
        "qk_norm": True,
        "fields": {"first_k_dense_replace": 1, "num_shared_experts": 1, "sliding_window_pattern": 4},
    },
    "afmoe": {  # Arcee Trinity: a sigmoid output gate (gate_proj, hidden -> heads x head_dim), 4 norms
        "qk_norm": True,
        "attn_output_gate": True,
        "norms_per_layer": 4,
        "router_bias": True,  # expert_bias is a parameter here
        "fields": {"num_dense_layers": 1, "num_shared_experts": 2, "global_attn_every_n_layers": 4},
    },
    # Hunyuan-A13B: every layer routes (experts and the one shared MLP are intermediate_size wide:
    # transformers reads neither moe_intermediate_size nor num_shared_expert); per-head q/k norms
    "hunyuan_v1_moe": {
        "qk_norm": True,
        "shared_experts": 1,
        "drop_fields": ("moe_intermediate_size",),
        "fields": {"moe_topk": 1, "num_experts": 1},
    },
    # Hunyuan dense (Hunyuan-7B...) and HunyuanVL's text model: Llama with per-head q/k norms
    "hunyuan_v1_dense": {"qk_norm": True},
    "hunyuan_vl_text": {"qk_norm": True},
    "axk1": {"moe_post_norm": True, "fields": {"first_k_dense_replace": 1}},  # A.X K1: DeepSeek-V3 + a norm
    # Aria: every layer routes; experts and shared experts are intermediate_size wide
    "aria_text": {"fields": {"moe_num_experts": 8, "moe_topk": 2, "moe_num_shared_experts": 2}},
    # Beam: a per-head sigmoid gate with a bias on the attention output, 4 norms, 3 dense layers
    "beam": {
        "qk_norm": True,
        "attn_output_gate": True,
        "attn_gate_bias": True,
        "norms_per_layer": 4,
        "dense_prefix": 3,
    },
    "jais2": {**LAYERNORM_GELU, **ALL_BIASES, "activation": "relu2"},
    # nanochat: RMSNorms without weights (q/k norms and the one after the embedding too), ReLU² MLP
    # Kimi Delta Attention layers (models/mixers.py) beside MLA layers without a query LoRA:
    # Kimi-Linear's gates are low-rank (hidden -> head_dim -> channels); Ling's hybrid has full-rank
    # gates and a sigmoid gate per head on its MLA output
    "kimi_linear": {
        "linear_kind": "kda",
        "kda_low_rank_gates": True,
        "fields": {"first_k_dense_replace": 1, "linear_num_heads": 32, "linear_head_dim": 128},
    },
    "bailing_hybrid": {"linear_kind": "kda", "head_gate": True, "fields": {"first_k_dense_replace": 2}},
    # Step 3.5 / Step 3.7's text model (transformers 5.25.0's step3p7, Step3p7TextConfig): per-head
    # q/k norms, a sigmoid gate per head (g_proj; "per-element" gating: one per channel) and the
    # sliding layers' own head count (layouts._step3p5); one shared expert share_expert_dim wide
    # beside the routed ones; the router's e_score_correction_bias is a buffer. Without
    # mlp_layer_types or moe_layers_enum layers 0-2 are dense. The hub's configs use the
    # attribute_map names and pad layer_types with the MTP layers (mtp_padded), which transformers
    # splits off and never builds.
    "step3p5": {
        "qk_norm": True,
        "dense_prefix": 3,
        "mtp_padded": True,
        "promote": {
            "share_expert_dim": "shared_expert_intermediate_size",
            "share_expert_dims": "shared_expert_intermediate_size",
            "num_attention_groups": "num_key_value_heads",
            "moe_num_experts": "num_local_experts",
            "moe_top_k": "num_experts_per_tok",
            "attention_other_setting.num_attention_heads": "num_sliding_attention_heads",
        },
        "fields": {"shared_expert_intermediate_size": 1280},  # share_expert_dim's default
    },
    "nanochat": {
        "norm_affine": False,
        "gated_mlp": False,
        "activation": "relu2",
        "qk_norm": True,
        "embed_norm": True,
    },
}

# Remote-code configs whose auto_map names a config class transformers ships under the same name:
# the layout is that family's, whatever the model_type says (Kimi-K2's "kimi_k2" loads DeepSeek's
# own configuration_deepseek.DeepseekV3Config; its checkpoint is DeepSeek-V3's layout, 61 layers).
# MiniMax-M1 and MiniMax-Text-01's remote classes are the checkpoints transformers' minimax was
# ported from (the -hf repositories hold the same weights under model_type "minimax"); vLLM runs
# both with one model class, reading attn_type_list.
AUTO_CONFIG_FAMILIES = {
    "DeepseekV3Config": "deepseek_v3",
    "MiniMaxM1Config": "minimax",
    "MiniMaxText01Config": "minimax",
}


def auto_config_family(config: dict[str, Any], model_type: str) -> str | None:
    """The family a remote-code config's ``auto_map`` AutoConfig class names (``AUTO_CONFIG_FAMILIES``), or None."""
    auto_map = config.get("auto_map")
    target = auto_map.get("AutoConfig") if isinstance(auto_map, dict) else None
    if model_type in FAMILIES or not isinstance(target, str):
        return None
    return AUTO_CONFIG_FAMILIES.get(target.rsplit(".", 1)[-1])
