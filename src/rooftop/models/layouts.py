"""Per-layer layouts of Hugging Face configs, and family layouts the generic reading does not cover.

``layer_kinds``: each family's layout reads the fields it uses (``layer_types``,
``sliding_window_pattern``, ``attention_chunk_size``, Jamba's periods, Nemotron-H's pattern,
Granite-4 and Bamba's Mamba layers...). A ``layer_types`` entry rooftop does not know is refused
by name.

``layout_fields``: Gemma 4 (``gemma4_text``) and MiMo-V2-Flash (``mimo_v2_flash``) give their
sliding and full attention layers different heads and widths (``ModelSpec.attention_shapes``);
Gemma 4 also runs a MoE block beside the dense MLP, shares the KV cache of its last layers and adds
per-layer inputs. LFM2 (``lfm2``, ``lfm2_moe``, ``lfm3``) has short-convolution layers and its own
MLP width rule; Laguna a head count per layer kind and an output gate. Each reader takes the config
(family defaults applied) and the fields read so far, and returns the ModelSpec fields it sets, as
transformers 5.24.0 builds the model (``models/gemma4/configuration_gemma4.py`` and
``modeling_gemma4.py``, ``models/mimo_v2_flash/modeling_mimo_v2_flash.py``,
``models/lfm2/modular_lfm2.py``, ``models/lfm2_moe/modular_lfm2_moe.py``, ``models/lfm3/modular_lfm3.py``,
``models/laguna/modular_laguna.py``). A new family is a new reader in ``LAYOUTS``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from rooftop.errors import SpecError
from rooftop.models.fields import count_field, get_field
from rooftop.models.mixers import RGLRU, AttentionShape, ShortConv
from rooftop.models.spec import DENSE_MOE

# Families that write Mamba layers as "mamba" or "linear_attention" in layer_types (not gated DeltaNet).
MAMBA_LAYER_TYPES = ("granitemoehybrid", "bamba")
SHORT_CONV_FAMILIES = ("lfm2", "lfm2_moe", "lfm3")
MAX_MLP_WIDTH = 1 << 22  # config_schema's bound on intermediate_size


def layer_kinds(config: dict[str, Any], model_type: str, layers: int) -> tuple[list[str], list[str] | None]:
    """Per-layer token mixers and (when the family fixes them) feed-forward kinds."""
    if model_type == "nemotron_h":
        return _nemotron(config, layers)
    if model_type == "jamba":
        return _jamba(config, layers)
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


def layout_fields(config: dict[str, Any], model_type: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The ModelSpec fields ``model_type``'s layout sets (none for most families)."""
    reader = LAYOUTS.get(model_type)
    return reader(config, fields) if reader else {}


def _gemma4(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """Gemma 4: full layers of their own shape, the MoE block, KV sharing, per-layer inputs.

    Full layers have ``global_head_dim`` heads; with ``attention_k_eq_v`` they have no v_proj
    and ``num_global_key_value_heads`` KV heads (without it, the sliding layers' count). The last
    ``num_kv_shared_layers`` layers attend over the cache of the last earlier layer of their kind
    (no k/v projections or k_norm); ``use_double_wide_mlp`` doubles their MLP. ``enable_moe_block``
    adds routed experts beside the dense MLP in every layer, with three more norms and a router
    with a scale per feature and per expert. The last layer is always full attention.
    """
    layers, heads = fields["layers"], fields["heads"]
    k_eq_v = bool(config.get("attention_k_eq_v"))
    full_kv = count_field(config, "num_global_key_value_heads", 0) if k_eq_v else 0
    head_dim = count_field(config, "global_head_dim", 512, minimum=1)
    full = AttentionShape(heads, full_kv or fields["kv_heads"], head_dim, k_eq_v=k_eq_v)
    mixers = [*fields.get("mixers", ("full",) * layers)]
    mixers[-1] = "full"
    shared = count_field(config, "num_kv_shared_layers", 0)
    per_layer = count_field(config, "hidden_size_per_layer_input", 0)
    moe = fields["moe"] if config.get("enable_moe_block") else None
    out: dict[str, Any] = {
        "attention_shapes": (("full", full),),
        "mixers": tuple(mixers),
        "kv_shared_layers": shared,
        "norms_per_layer": 4 + (3 if moe else 0) + (1 if per_layer else 0),
        "moe": moe and dataclasses.replace(moe, router_scales=True),
    }
    if set(mixers) == {"full"}:
        out["mixers"] = ()
    if moe:
        out["ffns"] = (DENSE_MOE,) * layers
    if config.get("use_double_wide_mlp") and shared:
        out["kv_shared_ffn"] = 2 * fields["ffn"]
    if per_layer:
        out["per_layer_input"] = per_layer
        out["per_layer_vocab"] = count_field(config, "vocab_size_per_layer_input", fields["vocab"], minimum=1)
    return out


def _mimo_v2(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """MiMo-V2-Flash: value heads narrower than the keys', sliding layers with their own KV heads.

    Full layers: ``num_key_value_heads`` of ``head_dim`` keys and ``v_head_dim`` values. Sliding
    layers: the ``swa_*`` fields (transformers, which ignores them, builds twice the KV heads and
    the same widths, which the published config also says), with a sink logit per head when
    ``add_swa_attention_sink_bias`` (transformers: always; full layers: never).
    """
    heads, kv_heads, head_dim = fields["heads"], fields["kv_heads"], fields["head_dim"]
    v_head_dim = count_field(config, "v_head_dim", head_dim, minimum=1)
    full = AttentionShape(heads, kv_heads, head_dim, v_head_dim, sinks=bool(config.get("add_full_attention_sink_bias")))
    swa = AttentionShape(
        count_field(config, "swa_num_attention_heads", heads, minimum=1),
        count_field(config, "swa_num_key_value_heads", 2 * kv_heads, minimum=1),
        count_field(config, "swa_head_dim", head_dim, minimum=1),
        count_field(config, "swa_v_head_dim", v_head_dim, minimum=1),
        sinks=bool(config.get("add_swa_attention_sink_bias", True)),
    )
    return {"attention_shapes": (("full", full), ("sliding", swa))}


def _lfm2(config: dict[str, Any], fields: dict[str, Any], adjust: bool = True, lfm3: bool = False) -> dict[str, Any]:
    """LFM2: the short convolution's shape and the MLP width transformers derives (``Lfm2MLP``).

    With ``block_auto_adjust_ff_dim`` the width is int(2/3 of intermediate_size), times
    ``block_ffn_dim_multiplier`` (when given) rounded up to ``block_multiple_of``: LFM2-1.2B's 12,288
    becomes 8,192, LFM2-350M's 6,656 becomes 4,608. LFM2-MoE's and LFM3's MLPs take
    intermediate_size as it is (``Lfm2MoeMLP``). LFM3 adds, by default, a sigmoid gate per head
    (``use_attention_gate``: g_proj, hidden -> heads) and norms after the mixer and the MLP
    (``use_sandwich_norm``: four per layer).
    """
    out: dict[str, Any] = {}
    if lfm3:
        out["head_gate"] = bool(config.get("use_attention_gate", True))
        out["norms_per_layer"] = 4 if config.get("use_sandwich_norm", True) else 2
    if "conv" in fields.get("mixers", ()):
        kernel = count_field(config, "conv_L_cache", 3, minimum=1)
        out["conv"] = ShortConv(fields["hidden"], kernel, bool(config.get("conv_bias", False)))
    if adjust and config.get("block_auto_adjust_ff_dim", True):
        width = int(2 * fields["ffn"] / 3)
        multiplier = config.get("block_ffn_dim_multiplier", 1.0)
        if multiplier is not None:
            if isinstance(multiplier, bool) or not isinstance(multiplier, int | float) or not multiplier > 0:
                raise SpecError(f"field 'block_ffn_dim_multiplier' must be a positive number, got {multiplier!r}")
            multiple = count_field(config, "block_multiple_of", 256, minimum=1)
            width = -(-int(multiplier * width) // multiple) * multiple
        if width > MAX_MLP_WIDTH:
            raise SpecError(f"block_ffn_dim_multiplier and block_multiple_of make an MLP {width:,} wide")
        out["ffn"] = width
    return out


def _laguna(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """Laguna: a head count per layer (``num_attention_heads_per_layer``) and a softplus output gate.

    Its published layout gives every full layer one count and every sliding layer another
    (Laguna-XS.2: 48 and 64 heads, 8 KV heads of 128), which ``attention_shapes`` holds; counts that
    vary within one kind are refused. ``gating`` true or "per-head": one gate per head (g_proj,
    hidden -> heads); "per-element": one per channel (hidden -> heads × head_dim), the size of
    Qwen3-Next's output gate (transformers' ``LagunaAttention``).
    """
    layers, mixers = fields["layers"], fields.get("mixers") or ("full",) * fields["layers"]
    given = config.get("num_attention_heads_per_layer")
    per_layer = given if isinstance(given, list) else [fields["heads"]] * layers
    if len(per_layer) != layers or not all(isinstance(h, int) and not isinstance(h, bool) and h > 0 for h in per_layer):
        raise SpecError(f"field 'num_attention_heads_per_layer' must list {layers} positive head counts")
    shapes = []
    for kind in dict.fromkeys(mixers):
        counts = sorted({h for h, m in zip(per_layer, mixers, strict=True) if m == kind})
        if len(counts) > 1:
            raise SpecError(
                f"field 'num_attention_heads_per_layer' gives the {kind} layers {counts[0]} to {counts[-1]} heads,"
                " which rooftop does not model (one count per layer kind)"
            )
        shapes.append((kind, AttentionShape(counts[0], fields["kv_heads"], fields["head_dim"])))
    gating = config.get("gating", True)
    if gating not in (True, False, "per-head", "per-element"):
        raise SpecError(f"field 'gating' must be true, false, 'per-head' or 'per-element', got {str(gating)[:40]!r}")
    return {
        "attention_shapes": tuple(shapes),
        "head_gate": gating in (True, "per-head"),
        "attn_output_gate": gating == "per-element",
    }


def _longcat(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """LongCat-Flash: each of ``num_layers`` blocks holds two MLA sublayers, two dense MLPs and a shortcut MoE.

    Read as 2 × num_layers layers (transformers' ``LongcatFlashDecoderLayer``): the first of each
    pair runs its dense MLP and the MoE side by side on the same normed input, outputs summed
    (``dense+moe``), the second its dense MLP alone. The router scores ``n_routed_experts`` +
    ``zero_expert_num`` experts; a zero-computation expert passes its input through (no weights,
    no FLOPs), so a token runs ``MoE.active_k`` experts with weights (12 × 512 / 768 = 8).
    transformers also allocates gate_up weights for the zero experts, which the checkpoint has
    not: rooftop counts the checkpoint's (LongCat-Flash: 560 B).
    """
    moe, blocks = fields["moe"], fields["layers"]
    if moe is None:
        raise SpecError("missing field 'n_routed_experts' (LongCat-Flash's shortcut MoE)")
    zero = count_field(config, "zero_expert_num", 0)
    return {
        "layers": 2 * blocks,
        "ffns": (DENSE_MOE, "dense") * blocks,
        "moe": dataclasses.replace(
            moe, zero_experts=zero, router_bias=bool(config.get("router_bias")), dense_layers=()
        ),
    }


def _opt(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """OPT (``modeling_opt.py``): its position table's 2 extra rows, OPT-350m's projections, its switches.

    ``word_embed_proj_dim`` narrower than the hidden width: token embeddings (and the tied
    lm_head) of that width, project_in and project_out. ``do_layer_norm_before`` false (OPT-350m):
    post-norm layers and no final norm. ``enable_bias`` and ``layer_norm_elementwise_affine``.
    """
    width = count_field(config, "word_embed_proj_dim", fields["hidden"], minimum=1)
    bias = bool(config.get("enable_bias", True))
    pre_norm = bool(config.get("do_layer_norm_before", True)) and not config.get("_remove_final_layer_norm")
    return {
        "position_offset": 2,
        "embed_width": 0 if width == fields["hidden"] else width,
        "final_norm": pre_norm,
        "qkv_bias": bias,
        "o_bias": bias,
        "mlp_bias": bias,
        "norm_affine": bool(config.get("layer_norm_elementwise_affine", True)),
    }


def _mpt(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """MPT: an MLP ``expansion_ratio`` × d_model wide; ``no_bias`` false gives every projection and norm a bias."""
    ratio = config.get("expansion_ratio", 4)
    if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not 0 < ratio <= 64:
        raise SpecError(f"field 'expansion_ratio' must be a number in (0, 64], got {str(ratio)[:40]!r}")
    out: dict[str, Any] = {"ffn": int(ratio * fields["hidden"])}
    if config.get("no_bias") is False:
        out |= {"qkv_bias": True, "o_bias": True, "mlp_bias": True, "norm_bias": True}
    return out


def _qk_layernorm(config: dict[str, Any], fields: dict[str, Any], default: bool, per_head: bool) -> dict[str, Any]:
    """``qk_layernorm``: Persimmon's q/k LayerNorms (default on) or StableLM's (default off).

    Persimmon's norm over head_dim; StableLM's is one LayerNorm per head, so weights over every
    head's channels (``StableLmLayerNormPerHead``).
    """
    on = bool(config.get("qk_layernorm", default))
    return {"qk_norm": on, "qk_norm_full": on and per_head}


def _recurrent_gemma(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """RecurrentGemma: the RG-LRU blocks' shape, the MLP's half width (intermediate_size // 2).

    Its MLP is gated with biases, ``intermediate_size // 2`` wide (``RecurrentGemmaMlp``); its
    attention layers are windowed (``attention_window_size``), with an o_proj bias only.
    """
    width = count_field(config, "lru_width", fields["hidden"], minimum=1)
    rglru = RGLRU(width, fields["heads"], count_field(config, "conv1d_width", 4, minimum=1))
    out: dict[str, Any] = {"ffn": fields["ffn"] // 2}
    if "rglru" in fields.get("mixers", ()):
        out["rglru"] = rglru
    return out


LAYOUTS: dict[str, Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]] = {
    "gemma4_text": _gemma4,
    "mimo_v2_flash": _mimo_v2,
    "lfm2": _lfm2,
    "lfm2_moe": functools.partial(_lfm2, adjust=False),
    "lfm3": functools.partial(_lfm2, adjust=False, lfm3=True),
    "laguna": _laguna,
    "longcat_flash": _longcat,
    "opt": _opt,
    "biogpt": lambda config, fields: {"position_offset": 2},  # BioGPT's table: max_position_embeddings + 2
    "mpt": _mpt,
    "recurrent_gemma": _recurrent_gemma,
    "persimmon": functools.partial(_qk_layernorm, default=True, per_head=False),
    "stablelm": functools.partial(_qk_layernorm, default=False, per_head=True),
}
