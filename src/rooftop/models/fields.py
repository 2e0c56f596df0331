"""Reading one field of a Hugging Face config dict: alternative spellings, integers, per-layer lists.

Shared by the mapping (``hf_config``), the MoE reader (``hf_moe``) and the layouts (``layouts``).
A field that is present but null counts as absent. Some families write a per-layer list where
others write one integer (Hunyuan's ``moe_topk: [8, 8, ...]``); ``int_field`` reads a list whose
entries are all equal as that integer and refuses one that varies, naming the field.
"""

from __future__ import annotations

import math
from typing import Any

from rooftop.errors import SpecError

ALIASES = {  # canonical name -> other spellings, first hit wins
    "num_hidden_layers": ("n_layer", "num_layers", "n_layers"),  # MPT, DBRX: n_layers
    "hidden_size": ("n_embd", "n_embed", "d_model"),
    "num_attention_heads": ("n_head", "n_heads"),  # MPT, DBRX: n_heads
    "intermediate_size": ("n_inner", "ffn_dim", "ffn_hidden_size", "block_ff_dim"),  # LFM2: block_ff_dim
    "tie_word_embeddings": ("tie_embedding",),  # LFM2
    "max_position_embeddings": ("n_positions", "n_ctx", "max_seq_len"),  # MPT, DBRX: max_seq_len
    # mixture of experts: Aria's moe_*, Hunyuan's moe_topk, EXAONE-MoE / Hy3 / AFMoE's num_shared_experts
    "num_local_experts": ("moe_num_experts",),
    "num_experts_per_tok": (
        "experts_per_token",
        "moe_topk",
        "num_experts_per_token",
        "top_k_experts",
        "moe_k",
    ),  # Kimi, Ling, Gemma 4, ERNIE-4.5
    "n_shared_experts": ("num_shared_experts", "moe_num_shared_experts"),
    "moe_intermediate_size": ("expert_ffn_hidden_size",),  # LongCat-Flash
    "first_k_dense_replace": ("num_dense_layers",),  # AFMoE: the first layers are dense
    "sliding_window_pattern": ("global_attn_every_n_layers",),  # AFMoE: every n-th layer is global
    "sliding_window": ("attention_window_size",),  # RecurrentGemma
}


def get_field(config: dict[str, Any], key: str, default: Any = None) -> Any:
    """``config[key]`` under its name or one of its ALIASES (first non-null hit), else ``default``."""
    for name in (key, *ALIASES.get(key, ())):
        if config.get(name) is not None:
            return config[name]
    return default


def _uniform(value: Any, key: str) -> Any:
    """A per-layer list whose entries are all equal, as that entry; any other value unchanged."""
    if not isinstance(value, list) or not value:
        return value
    if any(v != value[0] for v in value):
        raise SpecError(f"field {key!r} varies per layer ({value[:4]}...), which rooftop does not model")
    return value[0]


def _integral(value: int | float) -> bool:
    """A whole number (an int, or a finite float without a fraction: NaN and inf are not)."""
    return isinstance(value, int) or (math.isfinite(value) and value == int(value))


def int_field(config: dict[str, Any], key: str, where: str, default: int | None = None) -> int:
    """An integer field (or a per-layer list of one integer); a missing one without default raises."""
    value = _uniform(get_field(config, key, default), key)
    if value is None:
        raise SpecError(f"{where}: missing field {key!r}")
    if isinstance(value, bool) or not isinstance(value, int | float) or not _integral(value):
        raise SpecError(f"{where}: field {key!r} must be an integer, got {value!r}")
    return int(value)


def count_field(config: dict[str, Any], key: str, default: int, minimum: int = 0) -> int:
    """An integer layout field (a period, an offset, a count) or ``default`` when absent or null."""
    value = _uniform(get_field(config, key), key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not _integral(value) or value < minimum:
        raise SpecError(f"field {key!r} must be an integer ≥ {minimum}, got {value!r}")
    return int(value)
