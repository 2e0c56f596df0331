"""A model on a device for live accounting: analytic FLOPs and bytes per token of each phase.

Prefill costs are per prompt token of one sequence of the window's mean prompt (attention causal
pairs; the lm_head once per sequence); decode costs are per generated token at a mean context with
``batch`` sequences per step, so one weight read is shared by the running batch. The matmul FLOPs
are also counted in vLLM's convention (the full q×context score rectangle, not causal pairs) for
the cross-check against the engine's own estimate.
"""

from __future__ import annotations

import math

import msgspec
from msgspec.structs import replace

from rooftop.analytic.engine import evaluate
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.models.spec import ModelSpec

MATMUL_KINDS = ("gemm", "grouped_gemm", "attn_score", "attn_value")


def _round(x: float) -> int:
    """To the nearest integer, a half up: PromQL's ``round()``, so `rooftop rules` and `watch` agree.

    Python's ``round`` takes a half to the even neighbour (188.5 → 188, PromQL: 189).
    """
    return math.floor(x + 0.5)


class PerToken(msgspec.Struct, frozen=True):
    """Analytic cost per token of one phase at given shapes."""

    model_flops: float  # causal pairs (our MFU definition)
    matmul_flops_full: float  # vLLM's convention: matmuls, full q×context rectangle
    useful_bytes: float  # weights + KV read (MBU numerator)
    bytes: float  # all HBM bytes


class LiveModel(msgspec.Struct, frozen=True, eq=False):
    """A model on a device, with the workload's dtypes and parallelism, for live accounting.

    Compared by identity: ``memo`` caches the per-token costs it has computed.
    """

    spec: ModelSpec
    roofs: Roofs
    base: Workload
    memo: dict[tuple[str, int, int], PerToken] = msgspec.field(default_factory=dict)

    def _cost(self, workload: Workload, tokens: float) -> PerToken:
        ev = evaluate(self.spec, workload, self.roofs)
        full = evaluate(self.spec, replace(workload, causal=False), self.roofs)
        matmul = sum(float(t.op.cost.flops) * t.op.count for t in full.ops if t.op.kind in MATMUL_KINDS)
        useful = float(ev.total("weight_bytes")) + float(ev.total("kv_read_bytes"))
        return PerToken(
            float(ev.total("model_flops")) / tokens, matmul / tokens, useful / tokens, float(ev.bytes) / tokens
        )

    def prefill(self, prompt: float) -> PerToken:
        """Per prompt token, for one sequence of ``prompt`` tokens."""
        return self._memoised("prefill", max(1, _round(prompt)), 1)

    def decode(self, context: float, batch: float) -> PerToken:
        """Per generated token, at ``context`` cached tokens with ``batch`` sequences per step."""
        return self._memoised("decode", max(0, _round(context)), max(1, _round(batch)))

    def _memoised(self, phase: str, length: int, batch: int) -> PerToken:
        key = (phase, length, batch)
        if key not in self.memo:
            if phase == "prefill":
                w = replace(self.base, phase=Phase.PREFILL, batch=1, prompt=length, cached_prefix=0)
                self.memo[key] = self._cost(w, float(length))
            else:
                w = replace(self.base, phase=Phase.DECODE, batch=batch, context=length)
                self.memo[key] = self._cost(w, float(batch))
        return self.memo[key]


def live_model(
    model: str | None,
    hardware: str,
    dtype: str = "bf16",
    tp: int = 1,
    peak: str | None = None,
    bandwidth: str | None = None,
) -> LiveModel | None:
    """A LiveModel from a preset name or config.json (None when no model is given: telemetry only)."""
    if not model:
        return None
    from rooftop.hardware.catalog import get_roofs
    from rooftop.models.presets import resolve_model
    from rooftop.models.quantization import weight_dtypes
    from rooftop.units import parse_bytes_per_s, parse_flop_per_s

    roofs = get_roofs(hardware).with_overrides(
        parse_flop_per_s(peak) if peak else None, parse_bytes_per_s(bandwidth) if bandwidth else None
    )
    spec = resolve_model(model)
    weights, experts, group = weight_dtypes(dtype, None, stored=spec.stored)  # as the checkpoint stores them
    base = Workload(
        weight_dtype=weights, expert_dtype=experts, quant_group_size=group, act_dtype=dtype, kv_dtype=dtype, tp=tp
    )
    return LiveModel(spec, roofs, base)
