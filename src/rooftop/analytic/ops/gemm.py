"""Dense and grouped (MoE) matrix multiplications: projections, MLPs, router, lm_head."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rooftop.analytic.cost import Array, OpCost
from rooftop.analytic.registry import OpKind, register

# Bytes of one group's scale in weight-only formats: an fp16 scale for INT8/INT4 (W8A16, W4A16:
# AWQ, GPTQ, compressed-tensors); an 8-bit one for FP4 (MXFP4's E8M0 per 32, NVFP4's E4M3 per 16).
GROUP_SCALE_BYTES = {"int8": 2.0, "int4": 2.0, "fp4": 1.0}


def weight_bytes(k: float, n: float, weight_bytes_per_elt: float, group_size: int, scale_bytes: float) -> float:
    """Bytes of a [k, n] weight, plus a ``scale_bytes`` scale per ``group_size`` inputs (0: no group scales).

    W4A16 with group 128: 0.5 B/elt + 2/128 B/elt = 0.515625 B/elt (scales are 3 % extra); MXFP4
    (groups of 32, 1-byte scales): 0.5 + 1/32 = 0.53125 B/elt. Zero points, when a scheme has them,
    are not counted.
    """
    return k * n * weight_bytes_per_elt + (k * n / group_size * scale_bytes if scale_bytes else 0.0)


@register(OpKind.GEMM)
def gemm(
    tokens: ArrayLike,
    k: int,
    n: int,
    weight_bytes_per_elt: float,
    act_bytes_per_elt: float,
    group_size: int = 128,
    scale_bytes: float = 0.0,
) -> OpCost:
    """Y[tokens, n] = X[tokens, k] @ W[k, n]: 2·tokens·k·n FLOPs; W read once for all tokens.

    # X: [T, k] @ W: [k, n] -> Y: [T, n]
    Decode at batch 1 (T=1) in bf16 gives intensity 2kn / (2kn + 2k + 2n) ≈ 1 FLOP/B.
    """
    t = np.asarray(tokens, dtype=np.float64)
    flops = 2.0 * t * k * n
    return OpCost(
        flops=flops,
        model_flops=flops,
        weight_bytes=np.full_like(t, weight_bytes(k, n, weight_bytes_per_elt, group_size, scale_bytes)),
        act_in_bytes=t * k * act_bytes_per_elt,
        act_out_bytes=t * n * act_bytes_per_elt,
    )


def expected_experts(tokens: ArrayLike, experts: int, top_k: float) -> Array:
    """Expected number of distinct experts that ``tokens`` tokens route to, each picking top_k of experts.

    Assumes uniform, independent routing (what random weights give): a given expert is missed by
    one token with probability 1 - k/E, so E · (1 - (1 - k/E)^T) experts are read. A trained
    router is skewed and reads fewer. Mixtral (E=8, k=2) at T=1: 2; T=8: 8·(1 - 0.75^8) = 7.20.
    """
    t = np.asarray(tokens, dtype=np.float64)
    return experts * (1.0 - (1.0 - top_k / experts) ** t)


@register(OpKind.GROUPED_GEMM)
def grouped_gemm(
    tokens: ArrayLike,
    k: int,
    n: int,
    experts: int,
    top_k: float,
    weight_bytes_per_elt: float,
    act_bytes_per_elt: float,
    group_size: int = 128,
    scale_bytes: float = 0.0,
) -> OpCost:
    """MoE experts as one grouped GEMM: each token runs top_k experts; each expert touched is read once.

    # X: [T·top_k, k] gathered by expert @ W_e: [k, n] -> Y: [T·top_k, n]
    """
    t = np.asarray(tokens, dtype=np.float64)
    routed = t * top_k
    flops = 2.0 * routed * k * n
    per_expert = weight_bytes(k, n, weight_bytes_per_elt, group_size, scale_bytes)
    return OpCost(
        flops=flops,
        model_flops=flops,
        weight_bytes=expected_experts(t, experts, top_k) * per_expert,
        act_in_bytes=routed * k * act_bytes_per_elt,
        act_out_bytes=routed * n * act_bytes_per_elt,
    )
