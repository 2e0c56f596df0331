"""Operators of the recurrent token mixers of hybrid models: gated DeltaNet, KDA, Mamba, short-conv, RG-LRU.

Per layer and GPU, tensor parallelism splits heads (and so ``d_inner``, the value heads and the
state; a short convolution's channels) across ``tp`` GPUs, like attention heads. The 4-tap causal
convolution inside gated DeltaNet and Mamba layers is not modelled, like rotary embeddings (LFM2's
short convolution, the whole mixer of its layers, is). The recurrent state is kept in the
activation dtype (vLLM's default, ``mamba_ssm_cache_dtype=auto``) and is read and written once
per step (``ops/recurrent.py``).
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from rooftop.analytic.cost import Array
from rooftop.analytic.registry import OpKind
from rooftop.core.workload import Workload
from rooftop.models.spec import MAMBA_MIXERS, ModelSpec


class Step(Protocol):
    """What these builders need of decompose's step: shapes per GPU and the op constructors."""

    spec: ModelSpec
    workload: Workload
    tp: int
    act: float
    tokens: Array

    def gemm(self, name: str, k: int, n: int, count: int | None = None, tokens: Any = None, group: str = ...) -> Any:
        """A projection."""

    def norm(self, name: str, count: int, width: int | None = None, tokens: Any = None) -> Any:
        """A norm."""

    def op(self, name: str, kind: OpKind, count: int, group: str, /, **shapes: Any) -> Any:
        """Any registered operator."""


def _state_op(
    step: Step,
    name: str,
    count: int,
    flops_per_token: float,
    state: float,
    width_in: float,
    width_out: float,
    unit: str = "tensor",
) -> Any:
    """``count`` layers' recurrent operator: a per-sequence state read and written once per step."""
    shapes = {"tokens": step.tokens, "batch": step.workload.batch, "flops_per_token": flops_per_token}
    shapes |= {"state_elements": state, "state_bytes": step.act, "in_width": width_in, "out_width": width_out}
    return step.op(name, OpKind.RECURRENT_STATE, count, "attention", **shapes, act_bytes=step.act, unit=unit)


def linear_attention(step: Step) -> list[Any]:
    """Gated DeltaNet (or KDA) layers: input projections, the delta-rule recurrence, gated norm, out_proj.

    KDA's low-rank gates add the up-projections of both gates (rank -> channels) after in_proj.
    """
    s = step.spec
    n, la = s.count_mixers("linear"), s.linear
    if not n or la is None:
        return []
    tp = step.tp
    heads = math.ceil(la.v_heads / tp)
    per_token, state = la.recurrence_flops_per_token() / tp, la.state_elements / tp
    recurrence = _state_op(step, f"{la.kind}_recurrence", n, per_token, state, la.conv_dim / tp, la.value_dim / tp)
    name = la.kind  # gdn | kda | lightning
    ups = [step.gemm(f"{name}_gate_up", la.gate_rank, math.ceil(la.gate_up_width / tp), n)] if la.gate_rank else []
    return [
        step.gemm(f"{name}_in_proj", s.hidden, math.ceil(la.in_width / tp), n),
        *ups,
        recurrence,
        step.norm(f"{name}_norm", n, la.v_head_dim, step.tokens * heads),
        step.gemm(f"{name}_out_proj", math.ceil(la.value_dim / tp), s.hidden, n),
    ]


def state_space(step: Step) -> list[Any]:
    """Mamba layers: in_proj (Mamba-1: x_proj and dt_proj), the scan's state update and read, out_proj."""
    s = step.spec
    n, m = s.count_mixers(*MAMBA_MIXERS), s.ssm
    if not n or m is None:
        return []
    tp = step.tp
    inner = math.ceil(m.d_inner / tp)
    state = {"tokens": step.tokens, "batch": step.workload.batch, "state_bytes": step.act, "act_bytes": step.act}
    # the update h = exp(dt·A)·h + dt·B·x is elementwise (3 FLOPs per state element); the read y = C·h
    # is a batched matrix-vector product (2 per element), a matmul in every implementation
    update = {**state, "flops_per_token": 3.0 * inner * m.d_state, "in_width": inner, "out_width": 0.0}
    read = {**state, "flops_per_token": 2.0 * inner * m.d_state, "in_width": m.d_state, "out_width": inner}
    ops = [step.gemm("ssm_in_proj", s.hidden, math.ceil(m.in_width / tp), n)]
    if m.version == 1:
        ops.append(step.gemm("ssm_x_proj", inner, m.dt_rank + 2 * m.d_state, n))
        ops.append(step.gemm("ssm_dt_proj", m.dt_rank, inner, n))
    ops.append(
        step.op(
            "ssm_update",
            OpKind.RECURRENT_STATE,
            n,
            "attention",
            **update,
            state_elements=m.state_elements / tp,
            unit="vector",
        )
    )
    ops.append(step.op("ssm_read", OpKind.RECURRENT_STATE, n, "attention", **read, state_elements=0.0))
    if m.version == 2 and m.gated_norm:
        ops.append(step.norm("ssm_norm", n, inner))
    ops.append(step.gemm("ssm_out_proj", inner, s.hidden, n))
    return ops


def short_conv(step: Step) -> list[Any]:
    """LFM2's short-convolution layers: in_proj (B, C, x), the gated depthwise convolution, out_proj.

    The convolution and its two gates are elementwise work (vector unit, no model FLOPs); its state
    is the window of the last kernel - 1 inputs per channel, read and written once per step.
    """
    s = step.spec
    n, sc = s.count_mixers("conv"), s.conv
    if not n or sc is None:
        return []
    channels = math.ceil(sc.channels / step.tp)
    per_token, state = sc.flops_per_token() / step.tp, sc.state_elements / step.tp
    return [
        step.gemm("conv_in_proj", s.hidden, 3 * channels, n),
        _state_op(step, "short_conv", n, per_token, state, 3.0 * channels, channels, "vector"),
        step.gemm("conv_out_proj", channels, s.hidden, n),
    ]


def rg_lru(step: Step) -> list[Any]:
    """RecurrentGemma's recurrent blocks: x and y projections, the gates, the scan, the projection back.

    The gates are block-diagonal matmuls (heads blocks of width / heads: a GEMM of k = block, both
    gates' 2 × width outputs). The convolution and the RG-LRU recurrence are vector work on a
    state of one value per channel plus the convolution's window, read and written once per step:
    ~(2 · taps + 8) FLOPs per channel and token (taps, decay, gating, GELU(y) times the result).
    """
    s = step.spec
    n, r = s.count_mixers("rglru"), s.rglru
    if not n or r is None:
        return []
    width = math.ceil(r.width / step.tp)
    per_token, state = (2.0 * r.conv_kernel + 8.0) * width, r.state_elements / step.tp
    return [
        step.gemm("rglru_in_proj", s.hidden, 2 * width, n),
        step.gemm("rglru_gates", r.block, 2 * width, n),
        _state_op(step, "rglru_scan", n, per_token, state, 2.0 * width, width, "vector"),
        step.gemm("rglru_out_proj", width, s.hidden, n),
    ]
