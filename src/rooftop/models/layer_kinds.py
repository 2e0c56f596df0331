"""Which token mixer and which feed-forward each layer of a Hugging Face config has.

``layer_kinds``: each family's layout reads the fields it uses (``layer_types``,
``sliding_window_pattern``, ``attention_chunk_size``, Jamba's periods, Nemotron-H's pattern,
Granite-4 and Bamba's Mamba layers, Kimi-Linear's lists, MiniMax's ``attn_type_list``,
RecurrentGemma's ``block_types``, LFM2's ``full_attn_idxs``...). A ``layer_types`` entry rooftop does
not know is refused by name. The shapes of the layers are read elsewhere (``hf_config``,
``hf_mixers``, ``hf_moe``, and ``layouts`` for the families with shapes of their own).
"""

from __future__ import annotations

from typing import Any

from rooftop.errors import SpecError
from rooftop.models.fields import count_field, get_field

# Families that write Mamba layers as "mamba" or "linear_attention" in layer_types (not gated DeltaNet).
MAMBA_LAYER_TYPES = ("granitemoehybrid", "bamba")
SHORT_CONV_FAMILIES = ("lfm2", "lfm2_moe", "lfm3")
PURE_SSM = ("mamba", "falcon_mamba", "mamba2")


def layer_kinds(config: dict[str, Any], model_type: str, layers: int) -> tuple[list[str], list[str] | None]:
    """Per-layer token mixers and (when the family fixes them) feed-forward kinds."""
    if model_type == "nemotron_h":
        return _nemotron(config, layers)
    if model_type == "jamba":
        return _jamba(config, layers)
    if model_type in PURE_SSM:  # a norm and a Mamba mixer per layer, nothing else
        return ["mamba"] * layers, ["none"] * layers
    if model_type == "falcon_h1":  # attention and Mamba side by side in every layer
        return ["full+mamba"] * layers, None
    if model_type in MAMBA_LAYER_TYPES:
        return _mamba_layer_types(config, model_type, layers), None
    if model_type == "recurrent_gemma":
        return _griffin_kinds(config, layers), None
    if model_type == "minimax" and not isinstance(config.get("layer_types"), list):
        return _minimax_kinds(config, layers), None
    if model_type in SHORT_CONV_FAMILIES:
        return _short_conv_kinds(config, model_type, layers), None
    if model_type in ("qwen3_next",) and not config.get("layer_types"):
        every = count_field(config, "full_attention_interval", 4, minimum=1)
        return ["linear" if (i + 1) % every else "full" for i in range(layers)], None
    if model_type in ("kimi_linear", "bailing_hybrid") and not isinstance(config.get("layer_types"), list):
        return _kda_hybrid(config, model_type, layers), None
    return _attention_kinds(config, model_type, layers), None


def _kda_hybrid(config: dict[str, Any], model_type: str, layers: int) -> list[str]:
    """Kimi-Linear's ``linear_attn_config`` layer lists (1-indexed) or its default; Ling's groups."""
    if model_type == "bailing_hybrid":  # the last layer of each group of layer_group_size is attention
        group = count_field(config, "layer_group_size", 6, minimum=1)
        return ["full" if (i + 1) % group == 0 else "linear" for i in range(layers)]
    nested = config.get("linear_attn_config")
    full = nested.get("full_attn_layers") if isinstance(nested, dict) else None
    if full is None:  # transformers' default: every 4th layer from the 5th is attention
        return ["full" if i and i % 4 == 0 else "linear" for i in range(layers)]
    if not isinstance(full, list) or not all(isinstance(i, int) and 1 <= i <= layers for i in full):
        raise SpecError(f"field 'linear_attn_config.full_attn_layers' must list layers 1..{layers}")
    return ["full" if i + 1 in full else "linear" for i in range(layers)]


TYPE_NAMES = {
    "full_attention": "full",
    # transformers 5's DeepSeek-V3.2 and GLM-5 (DSA): full attention whose indexer picks the top-k keys
    "indexed_attention": "full",
    # NVIDIA's GLM-5.2 checkpoints: every layer full attention with DSA's top-k (the indexer bounds it)
    "deepseek_sparse_attention": "full",
    "sliding_attention": "sliding",
    "chunked_attention": "chunked",
    "linear_attention": "linear",
}


def _attention_kinds(config: dict[str, Any], model_type: str, layers: int) -> list[str]:
    window = config.get("sliding_window")
    if isinstance(config.get("hybrid_layer_pattern"), list):  # MiMo-V2: 1 sliding, 0 full, per layer
        pattern = config["hybrid_layer_pattern"]
        if len(pattern) != layers or any(p not in (0, 1) or isinstance(p, bool) for p in pattern):
            raise SpecError(f"field 'hybrid_layer_pattern' must list {layers} zeros (full) and ones (sliding)")
        return ["sliding" if p else "full" for p in pattern]
    if isinstance(config.get("layer_types"), list):
        return [TYPE_NAMES[n] for n in _known_types(config["layer_types"], layers)]
    if model_type == "llama4_text" and config.get("attention_chunk_size"):
        every = count_field(config, "no_rope_layer_interval", 4, minimum=1)
        return ["chunked" if (i + 1) % every else "full" for i in range(layers)]
    if not window:
        return ["full"] * layers
    pattern = get_field(config, "sliding_window_pattern")
    if isinstance(pattern, str) and pattern:  # EXAONE-4: "LLLG", L sliding, G global
        return ["sliding" if pattern[i % len(pattern)] == "L" else "full" for i in range(layers)]
    if model_type == "gemma2":
        pattern = 2
    if isinstance(pattern, int) and pattern > 0:
        return ["sliding" if (i + 1) % pattern else "full" for i in range(layers)]
    if model_type in ("qwen2", "qwen2_moe", "qwen2_5_vl", "qwen3", "qwen3_moe"):
        if not config.get("use_sliding_window"):
            return ["full"] * layers
        start = count_field(config, "max_window_layers", 0)
        return ["sliding" if i >= start else "full" for i in range(layers)]
    return ["sliding"] * layers  # Mistral-v0.1, StarCoder2, Phi-3: every layer


def _known_types(names: list[Any], layers: int) -> list[str]:
    """``layer_types`` when it lists one known type per layer; an unknown type is refused by name."""
    if unknown := sorted({str(n)[:40] for n in names if not isinstance(n, str) or n not in TYPE_NAMES}):
        raise SpecError(
            f"field 'layer_types' names layer type {unknown[0]!r}, which rooftop does not model"
            f" (it models {', '.join(TYPE_NAMES)})"
        )
    if len(names) != layers:
        raise SpecError(f"field 'layer_types' lists {len(names)} layers for num_hidden_layers {layers}")
    return [str(n) for n in names]


def shared_indexer_layers(config: dict[str, Any], model_type: str, layers: int) -> tuple[int, ...]:
    """GLM-5's layers without a DSA indexer of their own (they reuse the last one's top-k).

    As transformers' ``GlmMoeDsaConfig`` reads them: ``indexer_types`` ("full" | "shared" per
    layer), else ``index_topk_pattern`` ("F"/"S" per layer), else every ``index_topk_freq``-th
    layer from ``index_skip_topk_offset`` - 1 runs one (defaults 1 and 2: every layer). Other
    families run an indexer in every attention layer.
    """
    if model_type != "glm_moe_dsa":
        return ()
    kinds = config.get("indexer_types")
    if kinds is None and isinstance(pattern := config.get("index_topk_pattern"), str | list):
        kinds = [{"F": "full", "S": "shared"}.get(c, c) for c in pattern] if isinstance(pattern, str) else pattern
    if kinds is None:
        freq = count_field(config, "index_topk_freq", 1, minimum=1)
        offset = count_field(config, "index_skip_topk_offset", 2)
        return tuple(i for i in range(layers) if max(i - offset + 1, 0) % freq)
    if not isinstance(kinds, list) or any(k not in ("full", "shared") for k in kinds) or len(kinds) != layers:
        raise SpecError(f"field 'indexer_types' must list 'full' or 'shared' for each of the {layers} layers")
    return tuple(i for i, kind in enumerate(kinds) if kind == "shared")


def dense_mlp_layers(config: dict[str, Any], layers: int) -> set[int] | None:
    """The dense layers ``mlp_layer_types`` names ("dense" | "sparse" per layer), or None without it."""
    kinds = config.get("mlp_layer_types")
    if not isinstance(kinds, list):
        return None
    if unknown := sorted({str(k)[:40] for k in kinds if k not in ("dense", "sparse")}):
        raise SpecError(f"field 'mlp_layer_types' names MLP type {unknown[0]!r}, which rooftop does not model")
    if len(kinds) != layers:
        raise SpecError(f"field 'mlp_layer_types' lists {len(kinds)} layers for num_hidden_layers {layers}")
    return {i for i, kind in enumerate(kinds) if kind == "dense"}


BLOCK_LETTERS = {"mamba": "M", "linear_attention": "M", "attention": "*", "full_attention": "*", "mlp": "-", "moe": "E"}


def nemotron_pattern(config: dict[str, Any]) -> str:
    """Nemotron-H's layer pattern: ``hybrid_override_pattern``, or transformers 5's ``layers_block_type``."""
    if config.get("hybrid_override_pattern"):
        return str(config["hybrid_override_pattern"])
    blocks = config.get("layers_block_type") or []
    return "".join(BLOCK_LETTERS.get(str(b), "?") for b in blocks)


def _mamba_layer_types(config: dict[str, Any], model_type: str, layers: int) -> list[str]:
    """Granite-4 (``layer_types``: mamba | attention) and Bamba (``attn_layer_indices``)."""
    if isinstance(config.get("layer_types"), list):
        names = {"mamba": "mamba", "linear_attention": "mamba", "attention": "full", "full_attention": "full"}
        types = config["layer_types"]
        if len(types) != layers or any(not isinstance(t, str) or t not in names for t in types):
            raise SpecError(f"field 'layer_types' must list {layers} of mamba, attention")
        return [names[t] for t in types]
    attention = config.get("attn_layer_indices") or []
    if not isinstance(attention, list) or not all(isinstance(i, int) for i in attention):
        raise SpecError(f"field 'attn_layer_indices' must be a list of layer indices, got {attention!r}")
    return ["full" if i in attention else "mamba" for i in range(layers)]


def _griffin_kinds(config: dict[str, Any], layers: int) -> list[str]:
    """RecurrentGemma's ``block_types`` (recurrent | attention) repeated over the layers (default r, r, a)."""
    blocks = config.get("block_types", ["recurrent", "recurrent", "attention"])
    if not isinstance(blocks, list) or not blocks or any(b not in ("recurrent", "attention") for b in blocks):
        raise SpecError("field 'block_types' must list recurrent and attention blocks")
    return ["rglru" if blocks[i % len(blocks)] == "recurrent" else "sliding" for i in range(layers)]


def _minimax_kinds(config: dict[str, Any], layers: int) -> list[str]:
    """MiniMax-01's ``attn_type_list``, 0 lightning and 1 softmax (its checkpoints: every 8th softmax).

    Without it, transformers' default (``MiniMaxConfig``): even layers softmax, odd ones lightning.
    """
    listed = config.get("attn_type_list")
    if listed is None:
        return ["full" if i % 2 == 0 else "linear" for i in range(layers)]
    valid = isinstance(listed, list) and len(listed) == layers
    if not valid or any(t not in (0, 1) or isinstance(t, bool) for t in listed):
        raise SpecError(f"field 'attn_type_list' must list {layers} zeros (lightning) and ones (softmax)")
    return ["full" if t == 1 else "linear" for t in listed]


def _short_conv_kinds(config: dict[str, Any], model_type: str, layers: int) -> list[str]:
    """LFM2/LFM3's ``layer_types``; else LFM2's ``full_attn_idxs`` or (neither) all attention, LFM3's pattern.

    LFM3's default: layer i is full attention when i % 4 == 2, sliding when i % 4 == 0 (not the
    first), else a short convolution (transformers' ``Lfm3Config``).
    """
    names = {"conv": "conv", "full_attention": "full", "sliding_attention": "sliding"}
    if isinstance(config.get("layer_types"), list):
        types = config["layer_types"]
        if len(types) != layers or any(not isinstance(t, str) or t not in names for t in types):
            raise SpecError(f"field 'layer_types' must list {layers} of {', '.join(names)}")
        return [names[t] for t in types]
    if model_type == "lfm3":
        return ["full" if i % 4 == 2 else "sliding" if i % 4 == 0 and i else "conv" for i in range(layers)]
    attention = config.get("full_attn_idxs")
    if attention is None:
        return ["full"] * layers
    if not isinstance(attention, list) or not all(isinstance(i, int) and 0 <= i < layers for i in attention):
        raise SpecError(f"field 'full_attn_idxs' must list layer indices 0..{layers - 1}")
    return ["full" if i in attention else "conv" for i in range(layers)]


def _nemotron(config: dict[str, Any], layers: int) -> tuple[list[str], list[str]]:
    pattern = nemotron_pattern(config)
    if len(pattern) != layers or set(pattern) - set("M*-E"):
        raise SpecError(f"field 'hybrid_override_pattern' must have {layers} of M * - E")
    mixers = {"M": "mamba", "*": "full", "-": "none", "E": "none"}
    ffns = {"M": "none", "*": "none", "-": "dense", "E": "moe"}
    return [mixers[c] for c in pattern], [ffns[c] for c in pattern]


def _jamba(config: dict[str, Any], layers: int) -> tuple[list[str], list[str]]:
    attn_period = count_field(config, "attn_layer_period", 8, minimum=1)
    attn_offset = count_field(config, "attn_layer_offset", 4)
    moe_period = count_field(config, "expert_layer_period", 2, minimum=1)
    moe_offset = count_field(config, "expert_layer_offset", 1)
    mixers = ["full" if i % attn_period == attn_offset else "mamba" for i in range(layers)]
    ffns = ["moe" if i % moe_period == moe_offset else "dense" for i in range(layers)]
    return mixers, ffns
