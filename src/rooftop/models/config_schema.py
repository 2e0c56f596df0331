"""The schema step for a Hugging Face ``config.json``: every field rooftop reads, typed and bounded.

``check_config`` runs before :mod:`rooftop.models.hf_config` reads the dict, so the mapping there
only ever sees integers where a count is meant, within bounds that keep the work finite (a layer
loop of 1e12 iterations, a set of 1e12 dense-layer indices). Fields are declared in the tables
below, one row each; a new architecture's field is one new row. Unknown fields pass untouched.

Bounds are far above every published model (Llama-3.1-405B: 126 layers, 16,384 hidden, 128,256
vocabulary; DeepSeek-V3: 256 experts; Gemma 3: 262,144 vocabulary) and far below overflow.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from rooftop.core.schema import Finite, convert, integral_floats
from rooftop.errors import SpecError

MAX_LAYERS = 4096
MAX_WIDTH = 1 << 22  # hidden, FFN and expert widths: 4,194,304
MAX_HEADS = 1 << 16
MAX_EXPERTS = 1 << 16
MAX_VOCAB = 1 << 24
MAX_POSITIONS = 1 << 34

# field -> (least value, greatest value); integers, null allowed (HF writes null for "unset")
COUNTS: dict[str, tuple[int, int]] = {
    "num_hidden_layers": (1, MAX_LAYERS),
    "n_layer": (1, MAX_LAYERS),
    "num_layers": (1, MAX_LAYERS),
    "n_layers": (1, MAX_LAYERS),  # MPT, DBRX
    "hidden_size": (1, MAX_WIDTH),
    "n_embd": (1, MAX_WIDTH),
    "n_embed": (1, MAX_WIDTH),
    "d_model": (1, MAX_WIDTH),
    "num_attention_heads": (1, MAX_HEADS),
    "n_head": (1, MAX_HEADS),
    "n_heads": (1, MAX_HEADS),  # MPT, DBRX
    "num_key_value_heads": (1, MAX_HEADS),
    "num_kv_heads": (1, MAX_HEADS),  # Falcon
    "head_dim": (0, MAX_WIDTH),  # 0: hidden / heads
    "attention_head_dim": (0, MAX_WIDTH),
    "n_inner": (0, MAX_WIDTH),
    "ffn_dim": (0, MAX_WIDTH),
    "ffn_hidden_size": (0, MAX_WIDTH),
    "expert_ffn_hidden_size": (0, MAX_WIDTH),  # LongCat-Flash
    "word_embed_proj_dim": (1, MAX_WIDTH),  # OPT
    "intermediate_size_mlp": (0, MAX_WIDTH),  # Llama-4
    "vocab_size": (1, MAX_VOCAB),
    "max_position_embeddings": (0, MAX_POSITIONS),
    "n_positions": (0, MAX_POSITIONS),
    "n_ctx": (0, MAX_POSITIONS),
    "max_seq_len": (0, MAX_POSITIONS),  # MPT, DBRX
    # mixture of experts
    "num_local_experts": (0, MAX_EXPERTS),
    "n_routed_experts": (0, MAX_EXPERTS),
    "num_experts": (0, MAX_EXPERTS),
    "experts_per_token": (0, MAX_EXPERTS),
    "moe_num_experts": (0, MAX_EXPERTS),  # Aria
    "n_shared_experts": (0, MAX_EXPERTS),
    "num_shared_experts": (0, MAX_EXPERTS),
    "moe_num_shared_experts": (0, MAX_EXPERTS),  # Aria
    "num_dense_layers": (0, MAX_LAYERS),  # AFMoE
    "zero_expert_num": (0, MAX_EXPERTS),  # LongCat-Flash
    "shared_expert_intermediate_size": (0, MAX_WIDTH),
    "shared_intermediate_size": (0, MAX_WIDTH),
    "moe_shared_expert_intermediate_size": (0, MAX_WIDTH),
    "first_k_dense_replace": (0, MAX_LAYERS),
    "decoder_sparse_step": (1, MAX_LAYERS),
    "interleave_moe_layer_step": (1, MAX_LAYERS),
    # attention windows and hybrid layouts
    "sliding_window": (0, MAX_POSITIONS),
    "attention_chunk_size": (0, MAX_POSITIONS),
    "full_attention_interval": (1, MAX_LAYERS),
    "linear_num_key_heads": (0, MAX_HEADS),
    "linear_num_value_heads": (0, MAX_HEADS),
    "linear_key_head_dim": (0, MAX_WIDTH),
    "linear_value_head_dim": (0, MAX_WIDTH),
    "linear_conv_kernel_dim": (0, MAX_WIDTH),
    "linear_num_heads": (0, MAX_HEADS),  # Kimi Delta Attention
    "linear_head_dim": (0, MAX_WIDTH),
    "short_conv_kernel_size": (0, MAX_WIDTH),
    "conv_L_cache": (1, MAX_WIDTH),
    "conv1d_width": (1, MAX_WIDTH),  # RecurrentGemma's RG-LRU blocks
    "lru_width": (1, MAX_WIDTH),
    "attention_window_size": (1, MAX_POSITIONS),  # LFM2's short convolution: taps per channel
    "block_ff_dim": (0, MAX_WIDTH),  # LFM2: intermediate_size's other name
    "block_multiple_of": (1, MAX_WIDTH),
    "layer_group_size": (1, MAX_LAYERS),
    # state-space (Mamba) layers
    "mamba_expand": (0, MAX_HEADS),
    "mamba_d_state": (0, MAX_WIDTH),
    "mamba_d_conv": (0, MAX_WIDTH),
    "mamba_dt_rank": (0, MAX_WIDTH),
    "mamba_n_heads": (0, MAX_HEADS),
    "mamba_num_heads": (0, MAX_HEADS),
    "mamba_head_dim": (0, MAX_WIDTH),
    "mamba_d_ssm": (0, MAX_WIDTH),
    "mamba_n_groups": (0, MAX_HEADS),
    "ssm_state_size": (0, MAX_WIDTH),
    "n_groups": (0, MAX_HEADS),
    # multi-head latent attention
    "kv_lora_rank": (0, MAX_WIDTH),
    "q_lora_rank": (0, MAX_WIDTH),
    "qk_nope_head_dim": (0, MAX_WIDTH),
    "qk_rope_head_dim": (0, MAX_WIDTH),
    "v_head_dim": (0, MAX_WIDTH),
    # DeepSeek sparse attention's indexer
    "index_n_heads": (0, MAX_HEADS),
    "index_head_dim": (0, MAX_WIDTH),
    "index_topk": (0, MAX_POSITIONS),
    # attention shapes per layer kind, KV sharing and per-layer inputs (Gemma 4, MiMo-V2)
    "global_head_dim": (1, MAX_WIDTH),
    "num_global_key_value_heads": (1, MAX_HEADS),
    "num_kv_shared_layers": (0, MAX_LAYERS),
    "hidden_size_per_layer_input": (0, MAX_WIDTH),
    "vocab_size_per_layer_input": (1, MAX_VOCAB),
    "altup_num_inputs": (0, MAX_HEADS),  # Gemma 3n
    "laurel_rank": (0, MAX_WIDTH),
    "top_k_experts": (0, MAX_EXPERTS),
    "swa_num_attention_heads": (1, MAX_HEADS),
    "swa_num_key_value_heads": (1, MAX_HEADS),
    "swa_head_dim": (1, MAX_WIDTH),
    "swa_v_head_dim": (1, MAX_WIDTH),
}
# field -> list of layer indices
LAYER_LISTS = ("mlp_only_layers", "moe_layers", "attn_layer_indices")
# field -> one entry per layer (a pattern string or a list of layer kinds)
PER_LAYER = ("hybrid_override_pattern", "layers_block_type", "layer_types", "mlp_layer_types", "hybrid_layer_pattern")
# field -> one integer, or one per layer (Hunyuan writes "moe_topk": [8, 8, ...], Gemma 3n
# "intermediate_size": [16384, ...]; fields.int_field reads a list of equal entries as that entry
# and refuses one that varies)
PER_LAYER_COUNTS: dict[str, tuple[int, int]] = {
    "intermediate_size": (0, MAX_WIDTH),
    "num_experts_per_tok": (0, MAX_EXPERTS),
    "moe_topk": (0, MAX_EXPERTS),
    "moe_intermediate_size": (0, MAX_WIDTH),
}
FLAGS = (
    "tie_word_embeddings",
    "attention_bias",
    "mlp_bias",
    "is_encoder_decoder",
    "attention_k_eq_v",
    "enable_moe_block",
    "use_double_wide_mlp",
    "add_swa_attention_sink_bias",
    "add_full_attention_sink_bias",
)
TEXTS = ("model_type", "hidden_act", "activation_function", "topk_method", "_source")
# finite when given (LFM2's block_ffn_dim_multiplier scales its MLP width)
FLOATS = ("rope_theta", "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "block_ffn_dim_multiplier")


def _count(low: int, high: int) -> Any:
    return Annotated[int, msgspec.Meta(ge=low, le=high)] | None


def _per_layer(low: int, high: int) -> Any:
    return Annotated[list[Annotated[int, msgspec.Meta(ge=low, le=high)]], msgspec.Meta(max_length=MAX_LAYERS)]


_LAYER_INDEX = Annotated[int, msgspec.Meta(ge=0, le=MAX_LAYERS - 1)]
_TEXT = Annotated[str, msgspec.Meta(max_length=256)]
_LAYER_LIST = Annotated[list[_LAYER_INDEX], msgspec.Meta(max_length=MAX_LAYERS)]
# moe_layer_freq may be one 0 (dense) or 1 (MoE) per layer; hf_config checks the values and length
_ZERO_ONE_LIST = Annotated[list[int], msgspec.Meta(max_length=MAX_LAYERS)]
# one entry per layer: bounded like the layer count (a 10^6-letter pattern would be 10^6 layers)
_PER_LAYER = (
    Annotated[str, msgspec.Meta(max_length=MAX_LAYERS)] | Annotated[list[Any], msgspec.Meta(max_length=MAX_LAYERS)]
)
HFConfig = msgspec.defstruct(
    "HFConfig",
    [
        *((name, _count(low, high), None) for name, (low, high) in COUNTS.items()),
        *((name, _count(low, high) | _per_layer(low, high), None) for name, (low, high) in PER_LAYER_COUNTS.items()),
        *((name, _LAYER_LIST | None, None) for name in LAYER_LISTS),
        ("moe_layer_freq", Annotated[int, msgspec.Meta(ge=1, le=MAX_LAYERS)] | _ZERO_ONE_LIST | None, None),
        *((name, _PER_LAYER | None, None) for name in PER_LAYER),
        *((name, bool | None, None) for name in FLAGS),
        *((name, _TEXT | None, None) for name in TEXTS),
        *((name, Finite | None, None) for name in FLOATS),
    ],
    forbid_unknown_fields=False,
)


def check_config(config: dict[str, Any], where: str) -> dict[str, Any]:
    """``config`` with whole-number floats of count fields made ints; any bad field raises SpecError.

    The error names the file, the field and the value: ``cfg/config.json: num_hidden_layers =
    1000000000000: must be ≤ 4,096``. A ``text_config`` (multimodal wrappers) is checked too.
    """
    config = integral_floats(config, {*COUNTS, *PER_LAYER_COUNTS, "moe_layer_freq"})
    convert(config, HFConfig, where, SpecError)
    text = config.get("text_config")
    if isinstance(text, dict):
        config["text_config"] = integral_floats(text, {*COUNTS, *PER_LAYER_COUNTS, "moe_layer_freq"})
        convert(config["text_config"], HFConfig, f"{where}: text_config", SpecError)
    return config
