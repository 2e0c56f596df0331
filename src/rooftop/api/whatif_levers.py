"""The what-if levers: each re-evaluates one serving point with one remedy applied.

A serving point is a workload read two ways: TTFT is the prefill of one prompt (batch 1; for a
prefill workload, its own step at its batch) and TPOT the decode step at the workload's batch
and context (for a prefill workload, at context = prompt). A lever returns the variants it can
apply (none when it does not apply: INT4 weights that are INT4 already, EP on a dense model).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import msgspec
import numpy as np
from msgspec.structs import replace

from rooftop.analytic.chunked import chunked_prefill
from rooftop.analytic.engine import Transform, evaluate, same
from rooftop.analytic.expert_parallel import ExpertParallel, apply_ep
from rooftop.analytic.expert_parallel import weights_bytes_per_gpu as ep_weights
from rooftop.analytic.memory import budget
from rooftop.analytic.speculative import Drafter, speculate
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.dtypes import dtype
from rooftop.models.spec import ModelSpec


class Options(msgspec.Struct, frozen=True):
    """What the levers apply: batch factor, speculative k/α/drafter, chunk budget, links, SLOs."""

    batch_factor: int = 8
    spec_k: int = 4
    spec_alpha: float = 0.7
    drafter: Drafter = msgspec.field(default_factory=Drafter)
    chunk_tokens: int = 2048
    output_tokens: int = 256
    ep: int = 8
    ep_link: str = "intra"
    a2a: str = "deepep"
    ep_imbalance: float = 1.0
    pp: int = 2
    kv_link: str = "inter"
    slo: SLO = msgspec.field(default_factory=SLO)
    memory_utilization: float = 0.9
    ep_in_baseline: bool = False  # the workload itself runs EP (``--ep``): every variant keeps it

    def layout(self) -> ExpertParallel:
        """The EP layout of these options."""
        return ExpertParallel(self.ep, self.ep_link, self.a2a, self.ep_imbalance)

    def transform(self) -> Transform:
        """What every evaluation of the target goes through: EP when the baseline has it."""
        if not self.ep_in_baseline:
            return same
        return partial(apply_ep, layout=self.layout())

    @property
    def ranks(self) -> int:
        """EP ranks of the baseline (1 without EP): each runs the workload's batch."""
        return self.ep if self.ep_in_baseline else 1


class State(msgspec.Struct, frozen=True):
    """A serving point's predicted figures."""

    ttft_s: float
    tpot_s: float
    batch: float  # sequences per decode step (× tokens per step per sequence when speculating)
    gpus: int
    fits: bool
    free_bytes: float
    max_itl_s: float  # longest gap between two tokens of a running decode when a prompt arrives

    def metrics(self, slo: SLO) -> dict[str, Any]:
        """TTFT, TPOT, tokens/s (and per GPU), goodput per GPU under ``slo``, max ITL, memory fit."""
        tokens_per_s = self.batch / self.tpot_s
        met = self.fits and (slo.ttft_s is None or self.ttft_s <= slo.ttft_s)
        met = met and (slo.tpot_s is None or self.tpot_s <= slo.tpot_s)
        return {
            "ttft_s": self.ttft_s,
            "tpot_s": self.tpot_s,
            "tokens_per_s": tokens_per_s,
            "tokens_per_s_per_gpu": tokens_per_s / self.gpus,
            "goodput_tokens_per_s_per_gpu": tokens_per_s / self.gpus if met else 0.0,
            "max_itl_s": self.max_itl_s,
            "fits": self.fits,
            "free_bytes": self.free_bytes,
        }


class Variant(msgspec.Struct, frozen=True):
    """One remedy applied: its name, lever, predicted state and the assumptions it used."""

    name: str
    lever: str
    state: State
    assumptions: dict[str, Any]
    side_effects: str = ""
    also: tuple[str, ...] = ()  # other levers this variant answers (FP8 weights are FP8 GEMMs too)


class Context(msgspec.Struct, frozen=True):
    """The workload under test, its baseline and the options."""

    spec: ModelSpec
    roofs: Roofs
    w: Workload
    opts: Options
    base: State
    memo: dict[Workload, float] = msgspec.field(default_factory=dict)  # step times by workload

    @property
    def batch(self) -> int:
        """The workload's batch."""
        return int(np.asarray(self.w.batch))


def decode_of(w: Workload) -> Workload:
    """The decode step of a serving point."""
    if w.phase is Phase.DECODE:
        return w
    return replace(w, phase=Phase.DECODE, context=int(np.asarray(w.prompt)), cached_prefix=0)


def prefill_of(w: Workload) -> Workload:
    """The prefill step of a serving point (one prompt for a decode workload)."""
    return w if w.phase is Phase.PREFILL else replace(w, phase=Phase.PREFILL, batch=1)


def _weights(spec: ModelSpec, w: Workload, opts: Options, weights_bytes: float) -> float:
    """Weight bytes per GPU, the routed experts split over the EP ranks when the baseline has EP."""
    return ep_weights(w, spec, weights_bytes, opts.layout()) if opts.ep_in_baseline else weights_bytes


def free_bytes(spec: ModelSpec, roofs: Roofs, w: Workload, opts: Options, weights_bytes: float | None = None) -> float:
    """Usable bytes left at the serving point's decode (``weights_bytes`` replaces the weights)."""
    mem = budget(spec, decode_of(w), roofs.capacity_bytes, opts.memory_utilization)
    if not np.isfinite(roofs.capacity_bytes):
        return float("inf")
    weights = _weights(spec, w, opts, mem.weights_bytes) if weights_bytes is None else weights_bytes
    return float(mem.usable_bytes - weights - np.asarray(mem.kv_cache_bytes) - np.asarray(mem.activation_bytes))


def step_s(
    spec: ModelSpec, roofs: Roofs, w: Workload, memo: dict[Workload, float] | None = None, transform: Transform = same
) -> float:
    """Step time of the scalar workload ``w``, remembered in ``memo`` (variants share prefills)."""
    if memo is None:
        return float(transform(evaluate(spec, w, roofs)).time_s)
    if w not in memo:
        memo[w] = float(transform(evaluate(spec, w, roofs)).time_s)
    return memo[w]


def state_of(
    spec: ModelSpec, roofs: Roofs, w: Workload, opts: Options, memo: dict[Workload, float] | None = None
) -> State:
    """Evaluate the serving point ``w`` (with EP on every rank when the options' baseline has it)."""
    t = opts.transform()
    tpot = step_s(spec, roofs, decode_of(w), memo, t)
    ttft = step_s(spec, roofs, prefill_of(w), memo, t)
    free = free_bytes(spec, roofs, w, opts)
    batch = float(np.asarray(w.batch)) * opts.ranks
    return State(ttft, tpot, batch, w.tp * opts.ranks, free >= 0, free, ttft + tpot)


def workload_variant(ctx: Context, name: str, lever: str, w: Workload, assumptions: dict[str, Any]) -> Variant:
    """The serving point ``w`` (the workload with one change) as a variant."""
    return Variant(name, lever, state_of(ctx.spec, ctx.roofs, w, ctx.opts, ctx.memo), assumptions)


def lever_batch(ctx: Context) -> list[Variant]:
    """Batch × n, capped at the largest batch whose KV fits."""
    mem = budget(ctx.spec, decode_of(ctx.w), ctx.roofs.capacity_bytes, ctx.opts.memory_utilization)
    per_sequence = float(np.asarray(mem.kv_cache_bytes) + np.asarray(mem.activation_bytes)) / ctx.batch
    room = mem.usable_bytes - _weights(ctx.spec, ctx.w, ctx.opts, mem.weights_bytes)
    limit = max(room, 0.0) // per_sequence if np.isfinite(ctx.roofs.capacity_bytes) else float("inf")
    target = ctx.batch * ctx.opts.batch_factor
    new = int(min(target, limit)) if np.isfinite(limit) else target
    if new <= ctx.batch:
        return []
    w = replace(ctx.w, batch=new)
    capped = {"capped_at_max_batch": True} if new < target else {}
    return [workload_variant(ctx, f"batch {ctx.batch} → {new}", "batch", w, {"batch": new, **capped})]


def lever_weight_quant(ctx: Context) -> list[Variant]:
    """FP8 weights (W8A8 on the FP8 roof; W8A16 int8 without one) and INT4 (W4A16, group scales)."""
    out = []
    current = dtype(ctx.w.weight_dtype).bytes
    eight = "fp8" if ctx.roofs.has_compute("fp8") else "int8"
    if current > 1:
        w = replace(ctx.w, weight_dtype=eight, compute_dtype="")
        variant = workload_variant(ctx, f"weights {eight}", "weight-quant", w, {"weight_dtype": eight})
        out.append(replace(variant, also=("fp8-gemm",) if eight == "fp8" else ()))
    if current > 0.5:
        w = replace(ctx.w, weight_dtype="int4", compute_dtype="")
        assumptions = {"weight_dtype": "int4", "group_size": ctx.w.quant_group_size, "compute": w.compute}
        out.append(workload_variant(ctx, "weights int4 (W4A16)", "weight-quant", w, assumptions))
    return out


def lever_fp8_gemm(ctx: Context) -> list[Variant]:
    """FP8 GEMMs for weights already 8-bit or narrower (wider weights: the FP8-weights variant answers)."""
    if not ctx.roofs.has_compute("fp8") or ctx.w.compute == "fp8" or dtype(ctx.w.weight_dtype).bytes > 1:
        return []
    w = replace(ctx.w, weight_dtype="fp8", compute_dtype="fp8")
    return [workload_variant(ctx, "fp8 GEMMs", "fp8-gemm", w, {"weight_dtype": "fp8", "compute_dtype": "fp8"})]


def lever_kv_fp8(ctx: Context) -> list[Variant]:
    """An FP8 KV cache (none for a model without one: Mamba-only)."""
    if dtype(ctx.w.kv_dtype).bytes <= 1 or not ctx.spec.kv_elements_per_token:
        return []
    return [workload_variant(ctx, "kv fp8", "kv-fp8", replace(ctx.w, kv_dtype="fp8"), {"kv_dtype": "fp8"})]


def lever_flash(ctx: Context) -> list[Variant]:
    """IO-aware attention when the workload materialises scores."""
    if ctx.w.attention == "flash":
        return []
    return [workload_variant(ctx, "flash attention", "flash-attention", replace(ctx.w, attention="flash"), {})]


def lever_speculative(ctx: Context) -> list[Variant]:
    """Speculative decoding at the options' k, α and drafter (decode only)."""
    o = ctx.opts
    d = decode_of(ctx.w)
    sp = speculate(ctx.spec, d, ctx.roofs, o.spec_k, o.spec_alpha, o.drafter, o.transform())
    tpot = float(sp.tpot_s)
    free = ctx.base.free_bytes - sp.draft_weight_bytes
    state = replace(
        ctx.base, tpot_s=tpot, fits=free >= 0, free_bytes=free, max_itl_s=ctx.base.ttft_s + float(sp.cycle_s)
    )
    assumptions = {
        "k": o.spec_k,
        "alpha": o.spec_alpha,
        "drafter": sp.drafter,
        "expected_tokens_per_verify": sp.expected_tokens,
        "verify_s": float(sp.verify_s),
        "draft_step_s": float(sp.draft_step_s),
        "draft_weight_bytes": sp.draft_weight_bytes,
    }
    name = f"speculative k={o.spec_k} α={o.spec_alpha:g} ({sp.drafter})"
    return [Variant(name, "speculative", state, assumptions)]


def lever_chunked(ctx: Context) -> list[Variant]:
    """Prompts chunked into the token budget beside the workload's running decodes."""
    o = ctx.opts
    if ctx.w.phase is Phase.PREFILL and ctx.batch > 1:
        return []  # the baseline TTFT is a batch of prompts in one step; chunks serve one prompt
    decodes = ctx.batch if ctx.w.phase is Phase.DECODE else 0
    context = int(np.asarray(decode_of(ctx.w).context))
    one = prefill_of(ctx.w) if ctx.w.phase is Phase.DECODE else replace(ctx.w, batch=1)
    c = chunked_prefill(ctx.spec, ctx.roofs, one, o.chunk_tokens, decodes, context, o.transform())
    if c.chunks < 2 and decodes == 0:
        return []
    state = replace(ctx.base, ttft_s=c.ttft_s, max_itl_s=c.max_itl_s if decodes else ctx.base.max_itl_s)
    assumptions = {
        "budget_tokens": o.chunk_tokens,
        "chunk_tokens": c.chunk_tokens,
        "chunks": c.chunks,
        "decode_batch": decodes,
        "tpot_while_chunking_s": c.tpot_during_s,
    }
    return [Variant(f"chunked prefill ({o.chunk_tokens} tokens)", "chunked-prefill", state, assumptions)]
