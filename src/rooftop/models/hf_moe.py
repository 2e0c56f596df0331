"""The mixture-of-experts and latent-attention parts of a Hugging Face config (for ``hf_config``).

Which layers route: ``mlp_layer_types`` ("dense" | "sparse" per layer, transformers 5's field)
when the config has it; else the family's ``dense_prefix`` (the leading dense layers transformers
builds without it, whatever ``first_k_dense_replace`` says); else ``first_k_dense_replace``,
``moe_layer_freq``, ``decoder_sparse_step`` and ``mlp_only_layers`` (Llama-4: its interleave step;
ERNIE-4.5: ``moe_layer_start_index``, ``moe_layer_end_index``, ``moe_layer_interval``).
"""

from __future__ import annotations

from typing import Any

from rooftop.errors import SpecError
from rooftop.models.families import FAMILIES, LLAMA
from rooftop.models.fields import count_field, get_field, int_field
from rooftop.models.layer_kinds import dense_mlp_layers
from rooftop.models.mixers import MLA
from rooftop.models.spec import MoE


def moe(config: dict[str, Any], model_type: str, layers: int, where: str) -> MoE | None:
    """The experts of ``config``, or None for a dense model."""
    experts = get_field(config, "num_local_experts") or get_field(config, "n_routed_experts")
    experts = experts or get_field(config, "num_experts")
    if not experts:
        return None
    arch = FAMILIES.get(model_type, LLAMA)
    expert_ffn = int_field(config, "moe_intermediate_size", where, default=get_field(config, "intermediate_size"))
    shared = count_field(config, "n_shared_experts", 0) or arch.get("shared_experts", 0)
    shared_ffn = count_field(config, "shared_expert_intermediate_size", 0)
    shared_ffn = shared_ffn or count_field(config, "shared_intermediate_size", 0)  # Granite-4
    shared_ffn = shared_ffn or count_field(config, "moe_shared_expert_intermediate_size", 0)  # Nemotron-3
    if shared_ffn and not shared:  # Qwen-MoE: one shared expert of its own width
        shared = 1
    return MoE(
        experts=int(experts),
        top_k=int_field(config, "num_experts_per_tok", where),
        expert_ffn=expert_ffn,
        shared_experts=shared,
        shared_ffn=shared_ffn,
        dense_layers=dense_layers(config, model_type, layers),
        router_bias=config.get("topk_method") == "noaux_tc" or arch.get("router_bias", False),
        expert_bias=arch.get("expert_bias", False),
        shared_gate=bool(shared and arch.get("shared_gate", False)),
        post_norm=arch.get("moe_post_norm", False),
        expert_norm=arch.get("expert_norm", False),
    )


def dense_layers(config: dict[str, Any], model_type: str, layers: int) -> tuple[int, ...]:
    """Layers that use the dense MLP instead of experts."""
    if (listed := dense_mlp_layers(config, layers)) is not None:
        return tuple(sorted(listed))
    if (enum := config.get("moe_layers_enum")) is not None:  # Step 3.5: the routed layers, "3,4,...,44"
        items = enum.split(",") if isinstance(enum, str) else enum
        try:
            routed = {int(i) for i in items if str(i).strip()}
        except (TypeError, ValueError):
            raise SpecError(f"field 'moe_layers_enum' must list layer indices, got {str(enum)[:40]!r}") from None
        return tuple(i for i in range(layers) if i not in routed)
    if prefix := FAMILIES.get(model_type, LLAMA).get("dense_prefix"):
        return tuple(range(min(prefix, layers)))
    if model_type == "llama4_text":
        step = count_field(config, "interleave_moe_layer_step", 1, minimum=1)
        given = config.get("moe_layers")
        if given is not None and not (isinstance(given, list) and all(isinstance(i, int) for i in given)):
            raise SpecError(f"field 'moe_layers' must be a list of layer indices, got {given!r}")
        routed = set(given or range(step - 1, layers, step))
        return tuple(i for i in range(layers) if i not in routed)
    if config.get("moe_layer_start_index") is not None:  # ERNIE-4.5: (i + 1) % interval == 0, start <= i <= end
        start = count_field(config, "moe_layer_start_index", 0)
        end = config.get("moe_layer_end_index")
        end = layers - 1 if end in (None, -1) else count_field(config, "moe_layer_end_index", 0)
        step = count_field(config, "moe_layer_interval", 1, minimum=1)
        return tuple(i for i in range(layers) if (i + 1) % step or not start <= i <= end)
    dense = set(range(count_field(config, "first_k_dense_replace", 0)))
    per_layer = config.get("moe_layer_freq")
    if isinstance(per_layer, list):  # one 0 (dense) or 1 (MoE) per layer
        if len(per_layer) != layers or set(per_layer) - {0, 1}:
            raise SpecError(f"field 'moe_layer_freq' must be an integer or {layers} zeros and ones")
        return tuple(sorted(dense | {i for i, routed in enumerate(per_layer) if not routed}))
    freq = count_field(config, "moe_layer_freq", 1, minimum=1)
    freq = count_field(config, "decoder_sparse_step", freq, minimum=1)
    dense |= {i for i in range(layers) if i % freq}
    dense |= set(config.get("mlp_only_layers") or ())
    return tuple(sorted(dense))


def mla(config: dict[str, Any], where: str) -> MLA | None:
    """Multi-head latent attention's widths (DeepSeek-V2/V3, GLM-4.7-Flash...), or None."""
    if not config.get("kv_lora_rank"):
        return None
    return MLA(
        kv_lora_rank=int_field(config, "kv_lora_rank", where),
        qk_nope_head_dim=int_field(config, "qk_nope_head_dim", where),
        qk_rope_head_dim=int_field(config, "qk_rope_head_dim", where),
        v_head_dim=int_field(config, "v_head_dim", where),
        q_lora_rank=config.get("q_lora_rank") or None,
    )
