"""Shrunken real configs run eagerly under FlopCounterMode, against rooftop's matmul FLOPs.

Helpers for test_flop_counter.py. Each family keeps its real config.json (tests/data/configs)
with only its sizes shrunk (few layers, small widths, few experts), so every structural field
(windows, MoE layout, shared experts, MLA, Mamba, biases) is the real one. Convention: eager
attention computes the full rectangle (rooftop's ``causal=False``), the logits of the last
position only (``logits_to_keep=1``), experts run eagerly (only the routed tokens).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rooftop.analytic.decompose import decompose
from rooftop.analytic.registry import OpKind
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.measure.profile import _cache_kwarg
from rooftop.models.hf_config import spec_from_config

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"
MATMUL_OPS = ("mm", "addmm", "bmm", "baddbmm")
SMALL = {"hidden_size": 64, "intermediate_size": 96, "vocab_size": 128, "num_attention_heads": 4, "head_dim": 16}
GEMMA4 = {  # two sliding layers to one full (k_eq_v: one KV head of 32), as the real ones five to one
    **SMALL,
    "num_hidden_layers": 6,
    "num_key_value_heads": 2,
    "global_head_dim": 32,
    "num_global_key_value_heads": 1,
    "sliding_window": 64,
    "layer_types": ["sliding_attention", "sliding_attention", "full_attention"] * 2,
    "vocab_size_per_layer_input": 128,
}
SHRINK: dict[str, dict[str, Any]] = {
    "llama-3": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2},
    "llama-4-scout": {
        **SMALL,
        "num_hidden_layers": 4,
        "num_key_value_heads": 2,
        "num_local_experts": 4,
        "intermediate_size_mlp": 128,
        "interleave_moe_layer_step": 2,
        "attention_chunk_size": 64,
    },
    "gpt-oss-20b": {
        **SMALL,
        "num_hidden_layers": 4,
        "num_key_value_heads": 2,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "pad_token_id": 0,
        "sliding_window": 64,
        "layer_types": ["sliding_attention", "full_attention"] * 2,
    },
    "gemma-3": {**SMALL, "num_hidden_layers": 6, "num_key_value_heads": 2, "sliding_window": 64},
    "deepseek-v3": {
        **SMALL,
        "num_hidden_layers": 3,
        "num_key_value_heads": 4,
        "first_k_dense_replace": 1,
        "n_routed_experts": 8,
        "num_experts_per_tok": 2,
        "n_group": 2,
        "topk_group": 1,
        "moe_intermediate_size": 32,
        "q_lora_rank": 48,
        "kv_lora_rank": 32,
        "qk_nope_head_dim": 16,
        "qk_rope_head_dim": 8,
        "v_head_dim": 16,
        "head_dim": None,
    },
    "deepseek-v3.2": {"index_n_heads": 4, "index_head_dim": 16, "index_topk": 64},  # and deepseek-v3's
    "laguna": {  # full, sliding, sliding, sliding, full, sliding: 4 and 8 heads (the real 48 and 64)
        **SMALL,
        "num_hidden_layers": 6,
        "num_key_value_heads": 2,
        "num_experts": 4,
        "num_experts_per_tok": 2,
        "moe_intermediate_size": 32,
        "shared_expert_intermediate_size": 32,
        "sliding_window": 64,
        "layer_types": ["full_attention", *["sliding_attention"] * 3, "full_attention", "sliding_attention"],
        "mlp_layer_types": ["dense"] + ["sparse"] * 5,
        "num_attention_heads_per_layer": [4, 8, 8, 8, 4, 8],
    },
    "opt": {**SMALL, "ffn_dim": 96, "num_hidden_layers": 2, "word_embed_proj_dim": 64, "max_position_embeddings": 128},
    "opt-350m": {  # opt-1.3b's file made OPT-350m-like: 32-wide embeddings projected in and out, post-norm
        **SMALL,
        "ffn_dim": 96,
        "num_hidden_layers": 2,
        "word_embed_proj_dim": 32,
        "do_layer_norm_before": False,
        "max_position_embeddings": 128,
    },
    "mpt": {"d_model": 64, "n_heads": 4, "n_layers": 2, "vocab_size": 128, "max_seq_len": 128},
    "jamba": {**SMALL, "num_hidden_layers": 4, "num_key_value_heads": 2, "mamba_d_state": 8, "mamba_dt_rank": 8},
    "qwen3-moe": {
        **SMALL,
        "num_hidden_layers": 2,
        "num_key_value_heads": 2,
        "num_experts": 8,
        "num_experts_per_tok": 2,
        "moe_intermediate_size": 32,
    },
    "qwen2.5": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2, "head_dim": None},
    "falcon-40b": {"hidden_size": 64, "vocab_size": 128, "num_attention_heads": 4, "num_kv_heads": 2},
    "gpt-neox": {"hidden_size": 64, "intermediate_size": 96, "vocab_size": 128, "num_attention_heads": 4},
    "phi-2": {**SMALL, "hidden_size": 80, "num_key_value_heads": 4, "head_dim": None},
    "mixtral": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2, "num_local_experts": 4},
    "mimo-v2": {  # transformers reads layer_types, rooftop the config's hybrid_layer_pattern: both given
        **SMALL,
        "num_hidden_layers": 4,
        "num_key_value_heads": 2,
        "swa_num_attention_heads": 4,
        "swa_num_key_value_heads": 4,
        "swa_head_dim": 16,
        "v_head_dim": 8,
        "swa_v_head_dim": 8,
        "n_routed_experts": 8,
        "num_experts_per_tok": 2,
        "moe_intermediate_size": 32,
        "sliding_window": 64,
        "sliding_window_size": 64,
        "hybrid_layer_pattern": [0, 1, 1, 0],
        "layer_types": ["full_attention", "sliding_attention", "sliding_attention", "full_attention"],
        "moe_layer_freq": [0, 1, 1, 1],
    },
    "gemma-4-moe": {**GEMMA4, "num_experts": 4, "top_k_experts": 2, "moe_intermediate_size": 32},
    # 31B's dense layout (k_eq_v full layers) with the small models' per-layer inputs, KV sharing
    # over the last 3 layers and their double-wide MLPs switched on
    "gemma-4-31b": {
        **GEMMA4,
        "hidden_size_per_layer_input": 8,
        "num_kv_shared_layers": 3,
        "use_double_wide_mlp": True,
    },
    # GPT-2-style field names (n_embd, n_head, n_inner), partial rotary, ALiBi, parallel blocks
    "bloom": {"n_embed": 64, "num_attention_heads": 4, "n_layer": 2, "vocab_size": 128},
    "gpt-bigcode": {"n_embd": 64, "n_head": 4, "n_layer": 2, "n_inner": 96, "vocab_size": 128, "n_positions": 128},
    "gpt-j": {"n_embd": 64, "n_head": 4, "n_layer": 2, "n_inner": 96, "vocab_size": 128, "rotary_dim": 8},
    "codegen": {"n_embd": 64, "n_head": 4, "n_layer": 2, "n_inner": 96, "vocab_size": 128, "rotary_dim": 8},
    "falcon-7b": {"hidden_size": 64, "num_attention_heads": 4, "n_head": 4, "num_hidden_layers": 2, "n_layer": 2},
    "phi-3": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2, "pad_token_id": 0},
    "phi-4": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2, "pad_token_id": 0},
    "stablelm": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2, "head_dim": None},
    "starcoder2": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2, "head_dim": None, "sliding_window": 64},
    "qwen3": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2},
    "mistral-3": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2},  # Mistral Small 3.1's text part
    "exaone-4": {**SMALL, "num_hidden_layers": 4, "num_key_value_heads": 2, "sliding_window": 64},
    "olmo-3": {**SMALL, "num_hidden_layers": 4, "num_key_value_heads": 2, "sliding_window": 64, "pad_token_id": 0},
    "minimax-m2": {  # partial rotary (rotary_dim), q/k norms over all heads, 4 experts of top-2
        **SMALL,
        "num_hidden_layers": 2,
        "num_key_value_heads": 2,
        "rotary_dim": 8,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "pad_token_id": 0,
    },
}


MLA_SMALL = {
    "num_key_value_heads": 4,
    "head_dim": None,
    "q_lora_rank": 48,
    "kv_lora_rank": 32,
    "qk_nope_head_dim": 16,
    "qk_rope_head_dim": 8,
    "v_head_dim": 16,
}
MOE_SMALL = {"num_experts_per_tok": 2, "moe_intermediate_size": 32, "n_group": 1, "topk_group": 1}
WINDOWED = {"sliding_window": 64, "layer_types": ["sliding_attention"] * 3 + ["full_attention"]}
# transformers' default config of a model type (tests/data/default_configs.json), shrunk the same way
DEFAULT_SHRINK: dict[str, dict[str, Any]] = {
    "afmoe": {**SMALL, **MOE_SMALL, **WINDOWED, "num_hidden_layers": 4, "num_key_value_heads": 2, "num_experts": 4},
    "hy_v3": {**SMALL, **MOE_SMALL, "num_hidden_layers": 3, "num_key_value_heads": 2, "num_experts": 4},
    "exaone_moe": {
        **SMALL,
        **MOE_SMALL,
        **WINDOWED,
        "num_hidden_layers": 4,
        "num_key_value_heads": 2,
        "num_experts": 4,
    },
    "beam": {**SMALL, **MOE_SMALL, **WINDOWED, "num_hidden_layers": 4, "num_key_value_heads": 2, "num_experts": 4},
    "glm4_moe_lite": {**SMALL, **MOE_SMALL, **MLA_SMALL, "num_hidden_layers": 3, "n_routed_experts": 8},
    "axk1": {**SMALL, **MOE_SMALL, **MLA_SMALL, "num_hidden_layers": 3, "n_routed_experts": 8},
    "aria_text": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2, "moe_num_experts": 4},
    "jais2": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 4},
    "nanochat": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2},
    "apertus1p5_text": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2},
    # ERNIE-4.5 MoE spells its top-k moe_k (transformers maps num_experts_per_tok onto it)
    "persimmon": {**SMALL, "num_hidden_layers": 2, "head_dim": None},  # LayerNorm q/k norms with biases
    # transformers 5.24's Llama-style rows with q/k norms, sinks or four norms a layer
    "flint": {**SMALL, **WINDOWED, "num_hidden_layers": 4, "num_key_value_heads": 2},
    "granite_swa": {**SMALL, **WINDOWED, "num_hidden_layers": 4, "num_key_value_heads": 2},
    "hyperclovax": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2},
    "bitnet": {**SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2},
    "cohere2_moe": {**SMALL, **WINDOWED, "num_hidden_layers": 4, "num_key_value_heads": 2, "num_experts": 4},
    "mellum": {**SMALL, **MOE_SMALL, "num_hidden_layers": 2, "num_key_value_heads": 2, "num_experts": 4},
    "sarvam_moe": {**SMALL, **MOE_SMALL, "num_hidden_layers": 3, "num_key_value_heads": 2, "n_routed_experts": 4},
    "kolibri1": {**SMALL, **MOE_SMALL, **WINDOWED, "num_hidden_layers": 4, "num_key_value_heads": 2, "num_experts": 4},
    "ernie4_5_moe": {**SMALL, "num_hidden_layers": 3, "num_key_value_heads": 2, "moe_num_experts": 4, "moe_k": 2},
    # transformers 5.25's: Ergo's ReLU² experts with their norms, MiniCPM5-MoE's gated attention, Param2
    "ergo": {
        **SMALL,
        **MOE_SMALL,
        **WINDOWED,
        "num_hidden_layers": 4,
        "num_key_value_heads": 2,
        "num_experts": 4,
        "first_dense_intermediate_size": 96,
        "shared_intermediate_size": 48,
    },
    "minicpm5_moe": {**SMALL, **MOE_SMALL, "num_hidden_layers": 3, "num_key_value_heads": 2, "n_routed_experts": 4},
    "param2moe": {**SMALL, **MOE_SMALL, "num_hidden_layers": 3, "num_key_value_heads": 2, "n_routed_experts": 4},
    # Gemma 3n: AltUp's 4 streams, LAuReL, per-layer inputs, MatFormer MLP widths, the last 2 layers KV-shared
    "gemma3n_text": {
        **SMALL,
        **WINDOWED,
        "num_hidden_layers": 5,
        "layer_types": [
            "sliding_attention",
            "full_attention",
            "sliding_attention",
            "sliding_attention",
            "full_attention",
        ],
        "num_key_value_heads": 2,
        "intermediate_size": [96, 96, 64, 96, 128],
        "activation_sparsity_pattern": [0.95, 0.95, 0.0, 0.0, 0.0],
        "num_kv_shared_layers": 2,
        "hidden_size_per_layer_input": 8,
        "vocab_size_per_layer_input": 128,
        "laurel_rank": 4,
    },
}


def shrunk_default(model_type: str) -> dict[str, Any]:
    """transformers' default config of ``model_type`` with sizes from DEFAULT_SHRINK; per-layer lists cut."""
    stored = json.loads((CONFIGS.parent / "default_configs.json").read_text(encoding="utf-8"))
    shrunk = {**stored["counted"][model_type]["config"], **DEFAULT_SHRINK[model_type]}
    layers = shrunk["num_hidden_layers"]
    if isinstance(shrunk.get("mlp_layer_types"), list):  # the default's leading dense layers, then routed ones
        dense = shrunk["mlp_layer_types"].count("dense")
        shrunk["mlp_layer_types"] = ["dense"] * min(dense, layers - 1) + ["sparse"] * (layers - min(dense, layers - 1))
    if isinstance(shrunk.get("layer_types"), list) and len(shrunk["layer_types"]) != layers:
        shrunk["layer_types"] = shrunk["layer_types"][:layers]
    return {k: v for k, v in shrunk.items() if v is not None}


def shrunk_config(family: str) -> dict[str, Any]:
    """The family's real config (its text part for multimodal ones) with sizes from SHRINK."""
    source = {"opt-350m": "opt"}.get(family, family)  # one real file, two layouts
    raw = json.loads((CONFIGS / source / "config.json").read_text(encoding="utf-8"))
    text = (
        raw.get("text_config") if "num_hidden_layers" not in raw and isinstance(raw.get("text_config"), dict) else raw
    )
    text = {k: v for k, v in text.items() if k not in ("auto_map", "quantization_config", "rope_scaling")}
    shrunk = {**text, **(SHRINK["deepseek-v3"] if family == "deepseek-v3.2" else {}), **SHRINK[family]}
    layers = shrunk.get("num_hidden_layers")
    for key in ("layer_types", "mlp_layer_types"):  # the real per-layer lists, cut to the shrunken depth
        if isinstance(shrunk.get(key), list) and isinstance(layers, int) and len(shrunk[key]) > layers:
            shrunk[key] = shrunk[key][:layers]
    return {k: v for k, v in shrunk.items() if v is not None}


def rooftop_matmul_flops(config: dict[str, Any], phase: Phase, batch: int, prompt: int, context: int = 0) -> float:
    """rooftop's matmul FLOPs (GEMMs, attention products, scan reads) of one step, non-causal."""
    spec = spec_from_config(config, "shrunk")
    w = Workload(phase=phase, batch=batch, prompt=prompt, context=context, causal=False)
    matmul = {OpKind.GEMM, OpKind.GROUPED_GEMM, OpKind.ATTN_SCORE, OpKind.ATTN_VALUE, OpKind.RECURRENT_STATE}
    total = 0.0
    for op in decompose(spec, w):
        if op.kind in matmul and op.cost.unit == "tensor":
            total += float(op.cost.flops) * op.count
    return total


def torch_matmul_flops(config: dict[str, Any], batch: int, prompt: int) -> tuple[float, float]:
    """FlopCounterMode's matmul FLOPs of an eager prefill of ``prompt`` tokens and of one decode step."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    from transformers import AutoConfig, AutoModelForCausalLM

    clean = {k: v for k, v in config.items() if not k.startswith("_") and k != "model_type"}
    hf_config = AutoConfig.for_model(config["model_type"], **clean)
    torch.manual_seed(0)
    kwargs: dict[str, Any] = {"attn_implementation": "eager", "dtype": torch.float32}
    try:
        model = AutoModelForCausalLM.from_config(hf_config, experts_implementation="eager", **kwargs)
    except (TypeError, ValueError):  # a class without pluggable experts already runs them eagerly
        model = AutoModelForCausalLM.from_config(hf_config, **kwargs)
    model.train(False)
    ids = torch.randint(0, int(config["vocab_size"]), (batch, prompt))
    counts = []
    with torch.no_grad():
        counter = FlopCounterMode(display=False)
        with counter:
            out = model(input_ids=ids, use_cache=True, logits_to_keep=1)
        counts.append(counter)
        counter = FlopCounterMode(display=False)
        with counter:
            cache = {_cache_kwarg(model): out.past_key_values}
            model(input_ids=ids[:, :1], use_cache=True, logits_to_keep=1, **cache)
        counts.append(counter)
    flops = [
        float(sum(v for k, v in c.get_flop_counts().get("Global", {}).items() if str(k).split(".")[-1] in MATMUL_OPS))
        for c in counts
    ]
    return flops[0], flops[1]
