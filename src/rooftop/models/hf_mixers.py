"""The recurrent token mixers of a Hugging Face config (for ``hf_config``): linear attention, Mamba.

Gated DeltaNet (Qwen3-Next, Qwen3.5, OLMo Hybrid) reads ``linear_num_key_heads`` and its kin.
Kimi Delta Attention (the family row's ``linear_kind`` "kda") reads Kimi-Linear's
``linear_attn_config`` (the checkpoint's nesting, as transformers' class does), else the flat
``linear_num_heads`` / ``linear_head_dim`` / ``linear_conv_kernel_dim`` a transformers dump
writes, else (Ling's hybrid) the attention heads, ``head_dim`` and ``short_conv_kernel_size``.
MiniMax-01's lightning attention (``linear_kind`` "lightning") has the attention layers' heads and
``head_dim``.
"""

from __future__ import annotations

from typing import Any

from rooftop.models.families import FAMILIES, LLAMA
from rooftop.models.fields import get_field, int_field
from rooftop.models.layer_kinds import PURE_SSM
from rooftop.models.mixers import LinearAttention, StateSpace


def linear_attention(config: dict[str, Any], model_type: str, where: str) -> LinearAttention:
    """The shape of the linear-attention layers: gated DeltaNet, or KDA where the family says so."""
    arch = FAMILIES.get(model_type, LLAMA)
    if arch.get("linear_kind") == "kda":
        return _kda(config, arch, where)
    if arch.get("linear_kind") == "lightning":  # MiniMax-01: the attention heads and head_dim
        heads = int_field(config, "num_attention_heads", where)
        head_dim = int_field(config, "head_dim", where, default=int_field(config, "hidden_size", where) // heads)
        return LinearAttention(heads, heads, head_dim, head_dim, conv_kernel=0, kind="lightning")
    return LinearAttention(
        k_heads=int_field(config, "linear_num_key_heads", where),
        v_heads=int_field(config, "linear_num_value_heads", where),
        k_head_dim=int_field(config, "linear_key_head_dim", where),
        v_head_dim=int_field(config, "linear_value_head_dim", where),
        conv_kernel=int_field(config, "linear_conv_kernel_dim", where, default=4),
    )


def _kda(config: dict[str, Any], arch: dict[str, Any], where: str) -> LinearAttention:
    nested = config.get("linear_attn_config")
    nested = nested if isinstance(nested, dict) else {}
    heads = nested.get("num_heads") or get_field(config, "linear_num_heads") or config.get("num_attention_heads")
    head_dim = nested.get("head_dim") or get_field(config, "linear_head_dim") or config.get("head_dim")
    kernel = nested.get("short_conv_kernel_size") or get_field(config, "linear_conv_kernel_dim")
    kernel = kernel or config.get("short_conv_kernel_size") or 4
    shape = {"linear_num_heads": heads, "linear_head_dim": head_dim, "linear_conv_kernel_dim": kernel}
    heads, head_dim, kernel = (int_field(shape, key, where) for key in shape)
    return LinearAttention(
        k_heads=heads,
        v_heads=heads,
        k_head_dim=head_dim,
        v_head_dim=head_dim,
        conv_kernel=kernel,
        kind="kda",
        gate_rank=head_dim if arch.get("kda_low_rank_gates") else 0,  # Kimi: hidden -> head_dim -> channels
    )


def ssm(config: dict[str, Any], model_type: str, where: str) -> StateSpace:
    """A Mamba layer's shape.

    Mamba-1: Mamba's, Falcon-Mamba's and Jamba's; Mamba-2: Mamba-2's, Falcon-H1 / Granite-4 / Bamba's
    and Nemotron-H's.
    """
    hidden = int_field(config, "hidden_size", where)
    if model_type in PURE_SSM:
        return _pure_mamba(config, model_type, hidden, where)
    if model_type == "jamba":
        return StateSpace(
            d_inner=int_field(config, "mamba_expand", where, default=2) * hidden,
            d_state=int_field(config, "mamba_d_state", where, default=16),
            conv_kernel=int_field(config, "mamba_d_conv", where, default=4),
            version=1,
            dt_rank=int_field(config, "mamba_dt_rank", where, default=-(-hidden // 16)),
            conv_bias=bool(config.get("mamba_conv_bias", True)),
            proj_bias=bool(config.get("mamba_proj_bias", False)),
            inner_norms=True,
        )
    if "mamba_n_heads" in config:  # Falcon-H1, Granite-4, Bamba
        heads = int_field(config, "mamba_n_heads", where)
        expand = int_field(config, "mamba_expand", where, default=2)
        d_inner = int_field(config, "mamba_d_ssm", where, default=expand * hidden)
        return StateSpace(
            d_inner=d_inner,
            d_state=int_field(config, "mamba_d_state", where, default=256),
            conv_kernel=int_field(config, "mamba_d_conv", where, default=4),
            heads=heads,
            groups=int_field(config, "mamba_n_groups", where, default=1),
            conv_bias=bool(config.get("mamba_conv_bias", True)),
            proj_bias=bool(config.get("mamba_proj_bias", False)),
            gated_norm=bool(config.get("mamba_rms_norm", model_type != "falcon_h1")),
        )
    heads = int_field(config, "mamba_num_heads", where)
    return StateSpace(
        d_inner=heads * int_field(config, "mamba_head_dim", where),
        d_state=int_field(config, "ssm_state_size", where),
        conv_kernel=int_field(config, "conv_kernel", where, default=4),
        heads=heads,
        groups=int_field(config, "n_groups", where, default=1),
        conv_bias=bool(config.get("use_conv_bias", True)),
        proj_bias=bool(config.get("mamba_proj_bias", config.get("use_bias", False))),
    )


def _pure_mamba(config: dict[str, Any], model_type: str, hidden: int, where: str) -> StateSpace:
    """A Mamba-only model's layer, by its family's field names: MambaMixer (Mamba, Falcon-Mamba) or Mamba2Mixer."""
    if model_type in ("mamba", "falcon_mamba"):  # Falcon-Mamba's B/C/dt norms have no weights
        rank = config.get("time_step_rank", "auto")
        return StateSpace(
            d_inner=int_field(config, "intermediate_size", where, default=0)
            or int_field(config, "expand", where, default=2) * hidden,
            d_state=int_field(config, "state_size", where, default=16),
            conv_kernel=int_field(config, "conv_kernel", where, default=4),
            version=1,
            dt_rank=-(-hidden // 16) if rank == "auto" else int_field(config, "time_step_rank", where),
            conv_bias=bool(config.get("use_conv_bias", True)),
            proj_bias=bool(config.get("use_bias", False)),
        )
    heads = int_field(config, "num_heads", where, default=128)
    return StateSpace(
        d_inner=heads * int_field(config, "head_dim", where, default=64),
        d_state=int_field(config, "state_size", where, default=128),
        conv_kernel=int_field(config, "conv_kernel", where, default=4),
        heads=heads,
        groups=int_field(config, "n_groups", where, default=8),
        conv_bias=bool(config.get("use_conv_bias", True)),
        proj_bias=bool(config.get("use_bias", False)),
        gated_norm=bool(config.get("rms_norm", True)),
    )
