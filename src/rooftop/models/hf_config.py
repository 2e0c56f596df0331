"""Pure mapping from a Hugging Face ``config.json`` dict to a ModelSpec.

No network, no ``transformers`` import, never ``trust_remote_code``: the file is read as JSON
data. Architectures differ in field names and defaults; those differences live in the
``FAMILIES`` table (``models/families.py``), not in if-chains. An unknown ``model_type`` with the
usual Llama fields is read as a Llama-style decoder (and says so in ``notes``); a structure
rooftop does not model (encoder-decoder, cross-attention, remote-code layouts...) is refused by
name. A field that is present but null counts as absent. Multimodal configs: the vision tower is
counted in the parameters and the language model is analysed; a nested ``text_config`` that omits
its shapes gets its text class's defaults (``TEXT_CONFIG_FIELDS``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from rooftop.core.safejson import read_json
from rooftop.errors import SpecError
from rooftop.models.config_schema import check_config
from rooftop.models.families import FAMILIES, LLAMA, TEXT_CONFIG_FIELDS, auto_config_family
from rooftop.models.fields import get_field as _get
from rooftop.models.fields import int_field as _int
from rooftop.models.hf_mixers import linear_attention, ssm
from rooftop.models.hf_moe import mla, moe
from rooftop.models.layer_kinds import layer_kinds, nemotron_pattern, shared_indexer_layers
from rooftop.models.layouts import layout_fields
from rooftop.models.mixers import Indexer
from rooftop.models.quantization import stored_weights
from rooftop.models.refusals import refusal, refused_type
from rooftop.models.spec import DENSE_MOE, ModelSpec
from rooftop.models.vision import vision_params

DENSE_FFNS = ("dense", DENSE_MOE)  # the layers with a dense MLP

# Flags read from the config when present; the family table gives the default. attention_bias
# covers the attention projections; Falcon's bias and StarCoder2's use_bias cover the MLP too,
# unless the family says otherwise (InternLM's bias: bias_covers_mlp False).
BIAS_FIELDS = ("attention_bias", "bias", "use_bias")
# Structure flags only the family table sets (ModelSpec fields of the same name, False by default)
FAMILY_FLAGS = (
    "qk_norm",
    "qk_norm_full",
    "qk_norm_bias",
    "mlp_norm",
    "learned_positions",
    "lm_head_bias",
    "embed_norm",
    "attn_sinks",
    "attn_gate_bias",
    "head_gate",
)


def _text_part(config: dict[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The language model's fields, and the vision tower's config when there is one."""
    top_type = str(config.get("model_type", ""))
    if why := refusal(config, top_type, wrapper=isinstance(config.get("text_config"), dict)):
        raise SpecError(f"{where}: {why}")
    # vit_config: Molmo2's released checkpoints name their tower so
    vision = next((config[k] for k in ("vision_config", "vit_config") if isinstance(config.get(k), dict)), None)
    if vision is None and top_type in ("llama4", "fuyu"):  # the default tower; Fuyu's is one projection
        vision = {}
    text = config.get("text_config")
    if isinstance(text, dict) and "num_hidden_layers" not in config:
        merged = {**text, "model_type": text.get("model_type") or top_type}
        # The wrapper's flag ties: transformers 5 puts it on the class that holds both embedding and
        # lm_head, and vLLM (config/vllm.py, with_hf_config) copies it into the language model's config.
        if "tie_word_embeddings" in config:
            merged["tie_word_embeddings"] = config["tie_word_embeddings"]
        return merged, vision
    return config, vision


def spec_from_config(config: Any, name: str, where: str = "config.json") -> ModelSpec:
    """Build a ModelSpec from a parsed config.json dict. ``where`` names the input in errors."""
    if not isinstance(config, dict):
        raise SpecError(f"{where}: expected a JSON object, got {type(config).__name__}")
    if why := refused_type(config):
        raise SpecError(f"{where}: {why}")
    config = check_config(config, where)
    if config.get("is_encoder_decoder"):
        raise SpecError(f"{where}: field 'is_encoder_decoder' is true; rooftop models decoder-only transformers")
    top = config
    config, vision = _text_part(config, where)
    model_type = str(config.get("model_type", ""))
    if config is not top and (why := refusal(config, model_type)):
        raise SpecError(f"{where}: {why}")
    notes: list[str] = []
    if family := auto_config_family(config, model_type):
        notes.append(f"model_type {model_type!r} read as {family!r} (the layout of auto_map's AutoConfig)")
        model_type = family
    if model_type not in FAMILIES:
        notes.append(f"model_type {model_type!r} read as a Llama-style decoder")
    arch = FAMILIES.get(model_type, LLAMA)
    nested = TEXT_CONFIG_FIELDS.get(model_type, {}) if config is not top else {}
    drop = arch.get("drop_fields", ())  # fields transformers' class never reads
    given = {k: v for k, v in config.items() if v is not None and k not in drop}
    if arch.get("mtp_padded"):
        given = _mtp_unpadded(given)
    lifted = check_config(_promoted(given, arch), where)  # typed and bounded like top-level fields
    config = {**arch.get("fields", {}), **nested, **lifted, **given}
    try:
        fields = _shape_fields(config, model_type, arch, where)
        fields |= _layer_fields(config, model_type, fields["layers"], where)
        fields |= layout_fields(config, model_type, fields)
        notes.extend(fields.pop("notes", ()))
        if vision is not None:
            tower = vision_params(top, vision, fields["hidden"], where)
            if tower is None:
                kind = vision.get("model_type") or top.get("model_type")
                raise SpecError(
                    f"{where}: the vision tower ({kind!r}) of this multimodal config is not modelled;"
                    " pass its text_config as a config.json to analyse the language model alone"
                )
            fields["vision_params"] = tower
            towers = "vision and audio towers are" if isinstance(top.get("audio_config"), dict) else "vision tower is"
            notes.append(f"multimodal: the {towers} counted in the parameters; the text path is analysed")
        spec = ModelSpec(name=name, source=str(top.get("_source", where)), notes=tuple(notes), **fields)
        if stored := stored_weights(top, _mlp_share(spec)):
            spec = msgspec.structs.replace(spec, stored=stored, notes=(*spec.notes, stored.describe()))
        return spec
    except SpecError as exc:
        text = exc.args[0] if str(exc).startswith(where) else f"{where}: {exc}"
        if "missing field" in text and (inner := _nested_decoder(top)):
            text += f"; a decoder's fields are under {inner!r}: pass that part as a config.json"
        elif "missing field" in text and model_type and model_type not in FAMILIES:
            text += f" (model_type {model_type!r} is no family rooftop knows; it may name its fields otherwise)"
        raise SpecError(text) from exc


def _promoted(config: dict[str, Any], arch: dict[str, Any]) -> dict[str, Any]:
    """The fields a family's ``promote`` names (nested ``outer.inner`` or top-level), under the names rooftop reads.

    Null ones are left out; a field the config itself gives under rooftop's name wins.
    """
    out: dict[str, Any] = {}
    for path, name in arch.get("promote", {}).items():
        outer, _, inner = path.rpartition(".")
        section = config.get(outer) if outer else config
        if isinstance(section, dict) and section.get(inner) is not None:
            out[name] = section[inner]
    return out


def _mtp_unpadded(config: dict[str, Any]) -> dict[str, Any]:
    """``layer_types`` and ``mlp_layer_types`` less the trailing entries of MTP layers transformers never builds."""
    layers, mtp = config.get("num_hidden_layers"), config.get("num_nextn_predict_layers")
    if not isinstance(layers, int) or not isinstance(mtp, int) or mtp <= 0:
        return config
    lists = ("layer_types", "mlp_layer_types")
    return {
        k: v[:layers] if k in lists and isinstance(v, list) and len(v) == layers + mtp else v for k, v in config.items()
    }


def _nested_decoder(config: dict[str, Any]) -> str:
    """The dotted path of the largest nested decoder (hidden × layers), or '' when there is none.

    Qwen2.5-Omni's language model is thinker_config.text_config (its talker is smaller); VILA's is llm_cfg.
    """
    found: list[tuple[float, str]] = []
    stack: list[tuple[dict[str, Any], str, int]] = [(config, "", 3)]
    while stack:
        node, path, depth = stack.pop()
        for key, value in node.items():
            if not isinstance(value, dict) or key == "vision_config":
                continue
            here = f"{path}.{key}" if path else str(key)
            width, layers = value.get("hidden_size"), value.get("num_hidden_layers")
            if isinstance(width, int | float) and isinstance(layers, int | float):
                found.append((float(width) * float(layers), here[:120]))
            elif depth > 1:
                stack.append((value, here, depth - 1))
    return max(found)[1] if found else ""


def _shape_fields(config: dict[str, Any], model_type: str, arch: dict[str, Any], where: str) -> dict[str, Any]:
    """Widths, heads, norms and biases of the decoder."""
    hidden = _int(config, "hidden_size", where)
    heads = _int(config, "num_attention_heads", where)
    gated = arch.get("gated_mlp", True)
    bias = next((bool(config[f]) for f in BIAS_FIELDS if f in config), None)
    mlp_flags = BIAS_FIELDS[1:] if arch.get("bias_covers_mlp", True) else ()  # never attention_bias
    mlp_bias = next((bool(config[f]) for f in mlp_flags if f in config), None)
    fields: dict[str, Any] = {
        "layers": _int(config, "num_hidden_layers", where, default=len(nemotron_pattern(config)) or None),
        "hidden": hidden,
        "heads": heads,
        "kv_heads": _kv_heads(config, model_type, heads, where),
        "ffn": _ffn(config, arch, where, default=_default_ffn(config, gated, hidden)),
        "vocab": _int(config, "vocab_size", where),
        "head_dim": _int(config, "head_dim", where, default=_int(config, "attention_head_dim", where, default=0)),
        "tied_embeddings": bool(_get(config, "tie_word_embeddings", arch.get("tied_embeddings", False))),
        "max_positions": _int(config, "max_position_embeddings", where, default=0),
        "norm": arch.get("norm", "rms"),
        "gated_mlp": gated,
        "activation": str(
            _get(config, "hidden_act", _get(config, "activation_function", arch.get("activation", "silu")))
        ),
        "qkv_bias": bool(config.get("use_qkv_bias", arch.get("qkv_bias", False) if bias is None else bias)),
        "o_bias": arch.get("o_bias", False) if bias is None or "o_bias" in arch else bias,
        "mlp_bias": bool(config.get("mlp_bias", arch.get("mlp_bias", False) if mlp_bias is None else mlp_bias)),
    }
    for key in FAMILY_FLAGS:
        fields[key] = arch.get(key, False)
    if arch.get("qk_norm_field") in config:  # a family whose q/k norms a config field switches on
        fields["qk_norm"] = bool(config[arch["qk_norm_field"]])
    fields["norm_bias"] = arch.get("norm_bias", True)
    fields["norm_affine"] = arch.get("norm_affine", True)
    if "attention_out_bias" in config:  # Seed-OSS: q/k/v and o biases set apart
        fields["o_bias"] = bool(config["attention_out_bias"])
    fields["attn_output_gate"] = bool(config.get("attn_output_gate", arch.get("attn_output_gate", False)))
    fields["norms_per_layer"] = _norms_per_layer(config, model_type, arch)
    if model_type == "llama4_text" and config.get("intermediate_size_mlp"):
        fields["ffn"] = _int(config, "intermediate_size_mlp", where)
    if model_type == "granitemoehybrid" and not config.get("num_local_experts"):  # dense: the shared MLP only
        fields["ffn"] = _int(config, "shared_intermediate_size", where)
    return fields


def _ffn(config: dict[str, Any], arch: dict[str, Any], where: str, default: int | None) -> int:
    """The MLP width; the widest of a per-layer list in a family whose layout reads the list (Gemma 3n)."""
    widths = config.get("intermediate_size")
    if arch.get("per_layer_ffn") and isinstance(widths, list) and widths:
        return max(int(w) for w in widths)  # ints: config_schema checked each entry
    return _int(config, "intermediate_size", where, default=default)


def _default_ffn(config: dict[str, Any], gated: bool, hidden: int) -> int | None:
    """A missing intermediate_size: 4 × hidden for GPT-style MLPs; the expert width for all-MoE models."""
    return 4 * hidden if not gated else _get(config, "moe_intermediate_size")


def _kv_heads(config: dict[str, Any], model_type: str, heads: int, where: str) -> int:
    """KV heads: num_key_value_heads, or Falcon's num_kv_heads / multi_query, or BigCode's multi_query."""
    if model_type == "falcon":
        if config.get("new_decoder_architecture"):
            return _int(config, "num_kv_heads", where, default=heads)
        return 1 if config.get("multi_query", True) else heads
    if model_type == "gpt_bigcode" and config.get("multi_query", True):
        return 1
    return _int(config, "num_key_value_heads", where, default=heads)


def _norms_per_layer(config: dict[str, Any], model_type: str, arch: dict[str, Any]) -> int:
    if model_type == "falcon":  # parallel attention shares one LayerNorm; the new architecture has two
        if config.get("new_decoder_architecture"):
            return 1 if config.get("num_ln_in_parallel_attn") == 1 else 2
        return 1 if config.get("parallel_attn", True) else 2
    return int(arch.get("norms_per_layer", 2))


def _layer_fields(config: dict[str, Any], model_type: str, layers: int, where: str) -> dict[str, Any]:
    """Per-layer mixers and feed-forwards, windows, MoE, MLA, linear attention and Mamba shapes."""
    mixers, ffns = layer_kinds(config, model_type, layers)
    out: dict[str, Any] = {"moe": moe(config, model_type, layers, where), "mla": mla(config, where)}
    if config.get("index_topk"):
        out["indexer"] = Indexer(
            heads=_int(config, "index_n_heads", where),
            head_dim=_int(config, "index_head_dim", where),
            topk=_int(config, "index_topk", where),
            shared=shared_indexer_layers(config, model_type, layers),
        )
    if set(mixers) != {"full"}:
        out["mixers"] = tuple(mixers)
    if ffns is not None:
        out["ffns"] = tuple(ffns)
    if "sliding" in mixers:
        out["window"] = _int(config, "sliding_window", where)
    if "chunked" in mixers:
        out["chunk"] = _int(config, "attention_chunk_size", where)
    if "linear" in mixers:
        out["linear"] = linear_attention(config, model_type, where)
    if {"mamba", "full+mamba"} & set(mixers):
        out["ssm"] = ssm(config, model_type, where)
    if out["mla"] and not config.get("head_dim"):
        out["head_dim"] = out["mla"].qk_nope_head_dim + out["mla"].qk_rope_head_dim
    return out


def _mlp_share(spec: ModelSpec) -> float:
    """The dense MLPs' and shared experts' share of the layers' weights outside the routed experts."""
    attention = sum(spec.mixer_params(i) for i in range(spec.layers))
    dense = sum(spec.mlp_params(spec.ffn_width(i)) for i in range(spec.layers) if spec.ffn_kind(i) in DENSE_FFNS)
    moe = spec.moe
    shared = spec.moe_layers * moe.shared_experts * spec.mlp_params(moe.shared_ffn or moe.expert_ffn) if moe else 0
    return (dense + shared) / (attention + dense + shared) if attention + dense + shared else 0.0


def load_config_file(path: str | Path) -> ModelSpec:
    """Read a local config.json (a file, or a folder holding one) into a ModelSpec."""
    p = Path(path)
    if p.is_dir():
        p = p / "config.json"
    if not p.is_file():
        raise SpecError(f"{p}: no such config.json")
    config = read_json(p, SpecError)
    name = p.parent.name if p.name == "config.json" else p.stem
    return spec_from_config(config, name=name or "model", where=str(p))
