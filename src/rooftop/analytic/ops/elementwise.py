"""Elementwise operators on vector units: norms, activations, embedding gathers.

FLOP conventions (written down, since peers differ): RMSNorm 4 FLOPs per element (square, sum,
scale, weight); LayerNorm 7 (mean, subtract, square, sum, scale, weight, bias); SiLU 4 and GELU
8 per element (ReLU 1, squared ReLU 2: Nemotron), plus 1 for the gate multiply of a gated MLP.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rooftop.analytic.cost import OpCost
from rooftop.analytic.registry import OpKind, register

NORM_FLOPS_PER_ELT = {"rms": 4.0, "layer": 7.0}
ACT_FLOPS_PER_ELT = {"silu": 4.0, "gelu": 8.0, "relu": 1.0, "relu2": 2.0}


@register(OpKind.NORM)
def norm(tokens: ArrayLike, width: int, kind: str, act_bytes: float) -> OpCost:
    """Y = norm(x) over ``width`` features: reads x and the weight, writes y."""
    t = np.asarray(tokens, dtype=np.float64)
    weights = width * act_bytes * (2 if kind == "layer" else 1)
    return OpCost(
        flops=NORM_FLOPS_PER_ELT[kind] * t * width,
        weight_bytes=np.full_like(t, weights),
        act_in_bytes=t * width * act_bytes,
        act_out_bytes=t * width * act_bytes,
        unit="vector",
    )


def activation_flops_per_elt(activation: str) -> float:
    """FLOPs per element of an activation name as config.json spells it (gelu_new, silu, swish...)."""
    if "gelu" in activation:
        return ACT_FLOPS_PER_ELT["gelu"]
    return ACT_FLOPS_PER_ELT.get(activation, ACT_FLOPS_PER_ELT["silu"])


@register(OpKind.ACTIVATION)
def activation(tokens: ArrayLike, width: ArrayLike, activation: str, gated: bool, act_bytes: float) -> OpCost:
    """act(gate) ⊙ up (gated) or act(x): reads 2 (or 1) inputs of ``width``, writes 1."""
    t = np.asarray(tokens, dtype=np.float64)
    elements = t * np.asarray(width, dtype=np.float64)
    per_elt = activation_flops_per_elt(activation) + (1.0 if gated else 0.0)
    return OpCost(
        flops=per_elt * elements,
        act_in_bytes=elements * act_bytes * (2 if gated else 1),
        act_out_bytes=elements * act_bytes,
        unit="vector",
    )


@register(OpKind.EMBEDDING)
def embedding(tokens: ArrayLike, width: int, weight_bytes_per_elt: float, act_bytes: float, tables: int = 1) -> OpCost:
    """Gather one row per token from ``tables`` embedding tables (GPT-2 adds learned positions)."""
    t = np.asarray(tokens, dtype=np.float64)
    return OpCost(
        weight_bytes=tables * t * width * weight_bytes_per_elt,
        act_out_bytes=t * width * act_bytes,
        unit="vector",
    )
