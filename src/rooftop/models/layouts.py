"""Family layouts the generic reading of a Hugging Face config does not cover.

``layout_fields``: Gemma 4 (``gemma4_text``) and MiMo-V2-Flash (``mimo_v2_flash``) give their
sliding and full attention layers different heads and widths (``ModelSpec.attention_shapes``);
Gemma 4 also runs a MoE block beside the dense MLP, shares the KV cache of its last layers and adds
per-layer inputs. LFM2 (``lfm2``, ``lfm2_moe``, ``lfm3``) has short-convolution layers and its own
MLP width rule; Laguna a head count per layer kind and an output gate; LongCat-Flash two sublayers
per block and zero-computation experts; OPT, MPT, Persimmon, StableLM and RecurrentGemma switches
of their own. Each reader takes the config (family defaults applied) and the fields read so far
(``layer_kinds`` has placed the mixers), and returns the ModelSpec fields it sets, as transformers
5.24.0 builds the model (its ``modeling_*.py`` / ``modular_*.py`` of each family). A new family is
a new reader in ``LAYOUTS``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import msgspec

from rooftop.errors import SpecError
from rooftop.models.config_schema import MAX_HEADS, MAX_WIDTH
from rooftop.models.fields import count_field, get_field
from rooftop.models.mixers import RGLRU, AttentionShape, ShortConv
from rooftop.models.spec import DENSE_MOE


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
        "moe": moe and msgspec.structs.replace(moe, router_scales=True),
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


def _gemma3n(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """Gemma 3n (transformers' Gemma3nTextModel): Gemma 4's KV sharing and per-layer inputs, AltUp, LAuReL.

    The hidden state is kept as ``altup_num_inputs`` streams; each layer runs one and predicts and
    corrects the others (AltUp, with a router and its norm), beside a low-rank residual of
    ``laurel_rank`` (LAuReL, with a norm). Seven norms per layer: Gemma's four, the per-layer
    input's, AltUp's router norm and LAuReL's. The first layers' MLP activations are made sparse
    by a top-k over a Gaussian cutoff (``activation_sparsity_pattern``): computed dense, so the
    FLOPs are the dense MLP's. ``intermediate_size`` may give each layer its own MLP width (the
    MatFormer slices of a model cut from E4B, from 8192 to 16384).
    """
    per_layer = count_field(config, "hidden_size_per_layer_input", 0)
    out: dict[str, Any] = {
        "kv_shared_layers": count_field(config, "num_kv_shared_layers", 0),
        "altup_inputs": count_field(config, "altup_num_inputs", 0),
        "laurel_rank": count_field(config, "laurel_rank", 0),
        "norms_per_layer": 7 if per_layer else 6,
    }
    if per_layer:
        out["per_layer_input"] = per_layer
        out["per_layer_vocab"] = count_field(config, "vocab_size_per_layer_input", fields["vocab"], minimum=1)
    widths = get_field(config, "intermediate_size")
    if isinstance(widths, list) and len(widths) != fields["layers"]:
        raise SpecError(f"field 'intermediate_size' has {len(widths)} widths for {fields['layers']} layers")
    if isinstance(widths, list) and len(set(widths)) > 1:
        out["ffn_widths"] = tuple(int(w) for w in widths)
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
        if width > MAX_WIDTH:
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
    counted = all(isinstance(h, int) and not isinstance(h, bool) and 0 < h <= MAX_HEADS for h in per_layer)
    if len(per_layer) != layers or not counted:
        raise SpecError(f"field 'num_attention_heads_per_layer' must list {layers} head counts in 1..{MAX_HEADS}")
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


def _step3p5(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """Step 3.5 / 3.7 (``Step3p7Attention``): the sliding layers' own head count, a gate per head or channel.

    ``num_sliding_attention_heads`` (the hub's ``attention_other_setting.num_attention_heads``,
    promoted; its other keys transformers ignores) for the sliding layers, ``num_attention_heads``
    for the others. ``gating`` true or "per-head": g_proj hidden -> heads; any other value one gate
    per channel (hidden -> heads × head_dim): transformers builds g_proj either way.
    """
    mixers = fields.get("mixers") or ("full",) * fields["layers"]
    sliding = count_field(config, "num_sliding_attention_heads", fields["heads"], minimum=1)
    per_layer = [sliding if kind == "sliding" else fields["heads"] for kind in mixers]
    gating = True if config.get("gating", True) in (True, "per-head") else "per-element"
    return _laguna({**config, "num_attention_heads_per_layer": per_layer, "gating": gating}, fields)


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
        "moe": msgspec.structs.replace(
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


MLLAMA_CROSS_LAYERS = (3, 8, 13, 18, 23, 28, 33, 38)  # MllamaTextConfig's default cross_attention_layers
MLLAMA_ADDED_TOKENS = 8  # MllamaTextModel's embedding has vocab_size + 8 rows; the head has vocab_size


def _mllama(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """Llama 3.2 Vision's text model: Llama layers, and at ``cross_attention_layers`` cross-attention layers.

    A cross-attention layer (``MllamaCrossAttentionDecoderLayer``) attends from the text to the
    image's projected vision states: q/k/v/o projections (k and v from the image), per-head RMS
    norms of q and k, a tanh gate on the attention and on the MLP, a Llama MLP and two norms.
    Without an image transformers skips these layers (``MllamaTextModel.forward``; vLLM did too,
    until it dropped mllama after 0.10.2): they hold weights (``idle_params``) and no KV cache,
    and the text path rooftop analyses is the other layers.
    """
    layers = fields["layers"]
    cross = config.get("cross_attention_layers")
    cross = MLLAMA_CROSS_LAYERS if cross is None else cross
    if (
        not isinstance(cross, list | tuple)
        or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < layers for i in cross)
        or len(set(cross)) != len(cross)
        or len(cross) >= layers
    ):
        raise SpecError(
            f"field 'cross_attention_layers' must list distinct layers 0..{layers - 1},"
            " leaving one self-attention layer"
        )
    hidden, heads, kv_heads = fields["hidden"], fields["heads"], fields["kv_heads"]
    head_dim = fields.get("head_dim") or hidden // heads
    attention = 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim + 2 * head_dim
    layer = attention + 3 * hidden * fields["ffn"] + 2 * hidden + 2  # MLP, two norms, two gates
    kept = sorted(set(range(layers)) - set(cross))
    out: dict[str, Any] = {
        "layers": len(kept),
        "idle_params": len(cross) * layer + MLLAMA_ADDED_TOKENS * hidden,
        "notes": (
            f"mllama: {len(cross)} cross-attention layers attend only to an image; without one they are"
            " skipped, so their weights are counted and held in memory but do no work",
        ),
    }
    for name in ("mixers", "ffns"):  # per-layer lists read for every layer: keep the text path's
        if fields.get(name):
            out[name] = tuple(fields[name][i] for i in kept)
    return out


def _molmo2(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """Molmo2's text model: ``additional_vocab_size`` more embedding rows than the head has; q/k norms by kind.

    The extra rows embed the image and frame marker tokens: a text-only request never reads them
    (``idle_params``, as mllama's added tokens). ``qk_norm_type`` "olmo" normalizes the whole
    q and k projections, "qwen3" (the default) each head.
    """
    kind = config.get("qk_norm_type", "qwen3")
    if kind not in ("qwen3", "olmo"):
        raise SpecError(f"field 'qk_norm_type' must be 'qwen3' or 'olmo', got {kind!r}")
    extra = count_field(config, "additional_vocab_size", 128)
    return {"idle_params": extra * fields["hidden"], "qk_norm_full": kind == "olmo"}


def _recurrent_gemma(config: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """RecurrentGemma: the RG-LRU blocks' shape, the MLP's half width (intermediate_size // 2).

    Its MLP is gated with biases, ``intermediate_size // 2`` wide (``RecurrentGemmaMlp``); its
    attention layers are windowed (``attention_window_size``), with an o_proj bias only.
    """
    out: dict[str, Any] = {"ffn": fields["ffn"] // 2}
    if "rglru" in fields.get("mixers", ()):
        width = count_field(config, "lru_width", fields["hidden"], minimum=1)
        out["rglru"] = RGLRU(width, fields["heads"], count_field(config, "conv1d_width", 4, minimum=1))
    return out


LAYOUTS: dict[str, Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]] = {
    "gemma4_text": _gemma4,
    "gemma3n_text": _gemma3n,
    "mimo_v2_flash": _mimo_v2,
    "lfm2": _lfm2,
    "lfm2_moe": functools.partial(_lfm2, adjust=False),
    "lfm3": functools.partial(_lfm2, adjust=False, lfm3=True),
    "laguna": _laguna,
    "step3p5": _step3p5,
    "longcat_flash": _longcat,
    "opt": _opt,
    "biogpt": lambda config, fields: {"position_offset": 2},  # BioGPT's table: max_position_embeddings + 2
    "mpt": _mpt,
    "mllama_text_model": _mllama,
    "molmo2_text": _molmo2,
    "mllama": _mllama,
    "recurrent_gemma": _recurrent_gemma,
    "persimmon": functools.partial(_qk_layernorm, default=True, per_head=False),
    "stablelm": functools.partial(_qk_layernorm, default=False, per_head=True),
}
