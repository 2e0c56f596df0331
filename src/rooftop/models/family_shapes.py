"""Family layouts the generic reading of a config does not cover: per-kind attention shapes and more.

Gemma 4 (``gemma4_text``) and MiMo-V2-Flash (``mimo_v2_flash``) give their sliding and full
attention layers different heads and widths (``ModelSpec.attention_shapes``); Gemma 4 also runs
a MoE block beside the dense MLP, shares the KV cache of its last layers and adds per-layer
inputs. Each reader takes the config (family defaults applied) and the fields read so far, and
returns the ModelSpec fields it sets, as transformers 5.24.0 builds the model
(``models/gemma4/configuration_gemma4.py`` and ``modeling_gemma4.py``,
``models/mimo_v2_flash/modeling_mimo_v2_flash.py``). A new family is a new reader in ``LAYOUTS``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from rooftop.models.fields import count_field
from rooftop.models.mixers import AttentionShape
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


LAYOUTS: dict[str, Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]] = {
    "gemma4_text": _gemma4,
    "mimo_v2_flash": _mimo_v2,
}
