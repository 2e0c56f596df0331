"""Pure mapping from a Hugging Face ``config.json`` dict to a ModelSpec.

No network, no ``transformers`` import, never ``trust_remote_code``: the file is read as JSON
data. Architectures differ in field names and defaults; those differences live in the
``ARCHITECTURES`` table, not in if-chains. An unknown ``model_type`` with the usual Llama fields
is read as a Llama-style decoder (and says so in ``notes``); fields that announce a structure
rooftop does not model (state-space layers, encoder-decoder...) are refused by name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rooftop.core.safejson import read_json
from rooftop.errors import SpecError
from rooftop.models.config_schema import check_config
from rooftop.models.spec import MLA, ModelSpec, MoE

# model_type -> defaults that differ from a Llama-style decoder
LLAMA: dict[str, Any] = {}
ARCHITECTURES: dict[str, dict[str, Any]] = {
    "llama": LLAMA,
    "mistral": LLAMA,
    "mixtral": LLAMA,
    "qwen2": {"qkv_bias": True},
    "qwen2_moe": {"qkv_bias": True},
    "qwen3": {"qk_norm": True},
    "qwen3_moe": {"qk_norm": True},
    "phi3": LLAMA,
    "gemma": {"tied_embeddings": True, "activation": "gelu"},
    "gemma2": {"tied_embeddings": True, "activation": "gelu", "norms_per_layer": 4},
    "gemma3_text": {"tied_embeddings": True, "activation": "gelu", "norms_per_layer": 4, "qk_norm": True},
    "deepseek_v2": LLAMA,
    "deepseek_v3": LLAMA,
    "gpt2": {
        "tied_embeddings": True,
        "norm": "layer",
        "gated_mlp": False,
        "activation": "gelu",
        "qkv_bias": True,
        "o_bias": True,
        "mlp_bias": True,
        "learned_positions": True,
    },
}
# Fields whose presence means a structure the analytic model does not cover.
UNMODELLED_FIELDS = {
    "ssm_state_size": "state-space (Mamba) layers",
    "mamba_d_state": "state-space (Mamba) layers",
    "state_size": "state-space (Mamba) layers",
    "linear_num_key_heads": "linear-attention layers",
    "encoder_layers": "an encoder-decoder",
    "cross_attention_hidden_size": "cross-attention",
    "vision_config": "a vision tower (pass the text_config folder or file instead)",
}
ALIASES = {  # canonical name -> other spellings, first hit wins
    "num_hidden_layers": ("n_layer", "num_layers"),
    "hidden_size": ("n_embd", "d_model"),
    "num_attention_heads": ("n_head",),
    "intermediate_size": ("n_inner", "ffn_dim"),
    "max_position_embeddings": ("n_positions", "n_ctx"),
}


def _get(config: dict[str, Any], key: str, default: Any = None) -> Any:
    for name in (key, *ALIASES.get(key, ())):
        if config.get(name) is not None:
            return config[name]
    return default


def _int(config: dict[str, Any], key: str, where: str, default: int | None = None) -> int:
    value = _get(config, key, default)
    if value is None:
        raise SpecError(f"{where}: missing field {key!r}")
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise SpecError(f"{where}: field {key!r} must be an integer, got {value!r}")
    return int(value)


def spec_from_config(config: Any, name: str, where: str = "config.json") -> ModelSpec:
    """Build a ModelSpec from a parsed config.json dict. ``where`` names the input in errors."""
    if not isinstance(config, dict):
        raise SpecError(f"{where}: expected a JSON object, got {type(config).__name__}")
    config = check_config(config, where)
    if isinstance(config.get("text_config"), dict) and "num_hidden_layers" not in config:
        config = {**config["text_config"], "model_type": config["text_config"].get("model_type", "")}
    for field_name, what in UNMODELLED_FIELDS.items():
        if field_name in config:
            raise SpecError(f"{where}: field {field_name!r} announces {what}, which rooftop does not model")
    if config.get("is_encoder_decoder"):
        raise SpecError(f"{where}: field 'is_encoder_decoder' is true; rooftop models decoder-only transformers")
    model_type = str(config.get("model_type", ""))
    notes: list[str] = []
    if model_type not in ARCHITECTURES:
        notes.append(f"model_type {model_type!r} read as a Llama-style decoder")
    arch = ARCHITECTURES.get(model_type, LLAMA)

    hidden = _int(config, "hidden_size", where)
    heads = _int(config, "num_attention_heads", where)
    kv_heads = _int(config, "num_key_value_heads", where, default=heads)
    layers = _int(config, "num_hidden_layers", where)
    vocab = _int(config, "vocab_size", where)
    ffn = _int(config, "intermediate_size", where, default=4 * hidden if not arch.get("gated_mlp", True) else None)
    head_dim = _int(config, "head_dim", where, default=0)
    tied = _get(config, "tie_word_embeddings", arch.get("tied_embeddings", False))
    activation = str(_get(config, "hidden_act", _get(config, "activation_function", arch.get("activation", "silu"))))

    moe = _moe(config, layers, where)
    mla = _mla(config, where)
    if mla and head_dim == 0:
        head_dim = mla.qk_nope_head_dim + mla.qk_rope_head_dim
    try:
        return ModelSpec(
            name=name,
            layers=layers,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            ffn=ffn,
            vocab=vocab,
            head_dim=head_dim,
            tied_embeddings=bool(tied),
            max_positions=_int(config, "max_position_embeddings", where, default=0),
            norm=arch.get("norm", "rms"),
            gated_mlp=arch.get("gated_mlp", True),
            activation=activation,
            qkv_bias=bool(config.get("attention_bias", arch.get("qkv_bias", False))),
            o_bias=bool(config.get("attention_bias", arch.get("o_bias", False))) if model_type != "qwen2" else False,
            mlp_bias=bool(config.get("mlp_bias", arch.get("mlp_bias", False))),
            qk_norm=arch.get("qk_norm", False),
            norms_per_layer=arch.get("norms_per_layer", 2),
            learned_positions=arch.get("learned_positions", False),
            moe=moe,
            mla=mla,
            source=str(config.get("_source", where)),
            notes=tuple(notes),
        )
    except SpecError as exc:
        raise SpecError(f"{where}: {exc}") from exc


def _moe(config: dict[str, Any], layers: int, where: str) -> MoE | None:
    experts = _get(config, "num_local_experts") or _get(config, "n_routed_experts") or _get(config, "num_experts")
    if not experts:
        return None
    top_k = _int(config, "num_experts_per_tok", where)
    expert_ffn = _int(config, "moe_intermediate_size", where, default=_get(config, "intermediate_size"))
    shared = int(config.get("n_shared_experts") or 0)
    shared_ffn = int(config.get("shared_expert_intermediate_size") or 0)
    if shared_ffn and not shared:  # Qwen2-MoE: one shared expert of its own width
        shared = 1
    dense = set(range(int(config.get("first_k_dense_replace") or 0)))
    freq = int(config.get("moe_layer_freq") or config.get("decoder_sparse_step") or 1)
    dense |= {i for i in range(layers) if i % freq}
    dense |= set(config.get("mlp_only_layers") or ())
    return MoE(
        experts=int(experts),
        top_k=top_k,
        expert_ffn=expert_ffn,
        shared_experts=shared,
        shared_ffn=shared_ffn,
        dense_layers=tuple(sorted(dense)),
        router_bias=config.get("topk_method") == "noaux_tc",
    )


def _mla(config: dict[str, Any], where: str) -> MLA | None:
    if not config.get("kv_lora_rank"):
        return None
    return MLA(
        kv_lora_rank=_int(config, "kv_lora_rank", where),
        qk_nope_head_dim=_int(config, "qk_nope_head_dim", where),
        qk_rope_head_dim=_int(config, "qk_rope_head_dim", where),
        v_head_dim=_int(config, "v_head_dim", where),
        q_lora_rank=config.get("q_lora_rank") or None,
    )


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
