"""Speculative decoding: k draft tokens, verified in one target step of k + 1 tokens per sequence.

Conventions (docs/analytic.md, "Speculative decoding"):

* the **verify step** is a decode step of the target with ``decode_new = k + 1`` query tokens per
  sequence at the same context (the k drafts plus the bonus position), the lm_head on every one;
* each draft token is accepted with probability α, independently, until the first rejection
  (Leviathan et al. 2023): a verify step yields E = (1 − α^(k+1)) / (1 − α) tokens per sequence
  (k + 1 when α = 1; 1 when α = 0);
* the **drafter** runs k sequential decode steps per verify step at the same batch and context:
  ``ngram`` (prompt lookup) costs nothing; ``head`` (EAGLE / Medusa / DeepSeek MTP) is one decoder
  layer of the target plus the target's lm_head; ``model`` is a separate draft model;
* TPOT = (verify + k × draft step) / E; tokens/s = batch × E / (verify + k × draft step).

The verify GEMMs see batch × (k + 1) tokens, so their intensity rises with k + 1 until they reach
the ridge (seed 003 §7): :func:`ridge_new_tokens` gives the k + 1 where they cross.
"""

from __future__ import annotations

import math

import msgspec
import numpy as np
from msgspec.structs import replace

from rooftop.analytic.cost import Array
from rooftop.analytic.engine import Evaluation, Transform, evaluate, same
from rooftop.analytic.memory import weights_bytes_per_gpu
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.dtypes import dtype
from rooftop.errors import WorkloadError
from rooftop.models.spec import ModelSpec

DRAFTERS = ("ngram", "head", "model")


class Drafter(msgspec.Struct, frozen=True):
    """Who proposes the k draft tokens: 'ngram' (free), 'head' (one target layer) or 'model'."""

    kind: str = "ngram"
    model: ModelSpec | None = None  # the draft model when kind == 'model'

    def __post_init__(self) -> None:
        if self.kind not in DRAFTERS:
            raise WorkloadError(f"drafter must be one of {', '.join(DRAFTERS)} (or a model preset), not {self.kind!r}")
        if self.kind == "model" and self.model is None:
            raise WorkloadError("a 'model' drafter needs a draft model")

    @property
    def label(self) -> str:
        """'ngram', 'head' or the draft model's name."""
        return self.model.name if self.kind == "model" and self.model else self.kind

    def spec_for(self, target: ModelSpec) -> ModelSpec | None:
        """The ModelSpec the drafter runs (None for n-gram lookup)."""
        if self.kind == "ngram":
            return None
        if self.kind == "head":
            return head_spec(target)
        return self.model


def head_spec(target: ModelSpec) -> ModelSpec:
    """One decoder layer shaped like the target's last (its mixer, its dense or MoE FFN), with its lm_head."""
    last = target.layers - 1
    changes: dict[str, object] = {"name": f"{target.name} draft head", "layers": 1}
    if target.mixers:
        changes["mixers"] = target.mixers[-1:]
    if target.ffns:
        changes["ffns"] = target.ffns[-1:]
    if target.moe is not None and target.moe.dense_layers:
        changes["moe"] = replace(target.moe, dense_layers=(0,) if last in target.moe.dense_layers else ())
    return replace(target, **changes)  # type: ignore[arg-type]


def expected_tokens(k: int, alpha: float) -> float:
    """Tokens a verify step yields per sequence: (1 − α^(k+1)) / (1 − α); k + 1 at α = 1.

    k = 4, α = 0.8: (1 − 0.8^5) / 0.2 = (1 − 0.32768) / 0.2 = 3.3616.
    """
    check(k, alpha)
    if alpha >= 1.0:
        return float(k + 1)
    return (1.0 - alpha ** (k + 1)) / (1.0 - alpha)


def check(k: int, alpha: float) -> None:
    """Refuse k < 1 or α outside [0, 1]."""
    if k < 1:
        raise WorkloadError(f"speculative k (draft tokens) must be ≥ 1, got {k}")
    if not 0.0 <= alpha <= 1.0:
        raise WorkloadError(f"speculative acceptance α must be in [0, 1], got {alpha}")


def verify_workload(w: Workload, k: int) -> Workload:
    """The target's verify step: a decode step with k + 1 new tokens per sequence."""
    return replace(w, phase=Phase.DECODE, decode_new=k + 1)


class Speculation(msgspec.Struct, frozen=True):
    """One speculative configuration's step times (arrays over the workload grid)."""

    k: int
    alpha: float
    drafter: str
    plain_step_s: Array  # an ordinary decode step (one token per sequence)
    verify_s: Array
    draft_step_s: Array  # one drafter step (0 for n-gram)
    draft_weight_bytes: float  # per GPU, beside the target's
    verify: Evaluation

    @property
    def expected_tokens(self) -> float:
        """E = (1 − α^(k+1)) / (1 − α)."""
        return expected_tokens(self.k, self.alpha)

    @property
    def cycle_s(self) -> Array:
        """Verify + k drafter steps."""
        return self.verify_s + self.k * self.draft_step_s

    @property
    def tpot_s(self) -> Array:
        """(verify + drafting) / E."""
        return self.cycle_s / self.expected_tokens

    @property
    def speedup(self) -> Array:
        """Plain decode step / speculative TPOT."""
        return self.plain_step_s / self.tpot_s


def speculate(
    spec: ModelSpec, w: Workload, roofs: Roofs, k: int, alpha: float, drafter: Drafter, transform: Transform = same
) -> Speculation:
    """Speculative decoding of ``spec`` at decode workload ``w`` (k drafts, acceptance α).

    ``transform`` rewrites the target's evaluations (expert parallelism), not the drafter's.
    """
    check(k, alpha)
    if w.phase is not Phase.DECODE:
        raise WorkloadError("speculative decoding applies to decode workloads")
    plain = replace(w, decode_new=1)
    verify = transform(evaluate(spec, verify_workload(plain, k), roofs))
    draft_spec = drafter.spec_for(spec)
    draft_s: Array = np.zeros(())
    draft_bytes = 0.0
    if draft_spec is not None:
        draft_s = evaluate(draft_spec, plain, roofs).time_s
        draft_bytes = weights_bytes_per_gpu(draft_spec, plain)
        if drafter.kind == "head":  # the head shares the target's embedding and lm_head
            draft_bytes -= (
                (draft_spec.embedding_params + draft_spec.lm_head_params) * dtype(plain.weight_dtype).bytes / w.tp
            )
    return Speculation(
        k,
        alpha,
        drafter.label,
        transform(evaluate(spec, plain, roofs)).time_s,
        verify.time_s,
        draft_s,
        draft_bytes,
        verify,
    )


def gemm_intensity(ev: Evaluation) -> Array:
    """FLOP per HBM byte of the weight-bearing matrix operators of a step."""
    gemms = [t.op for t in ev.ops if t.op.cost.unit == "tensor" and np.any(t.op.cost.weight_bytes > 0)]
    flops = sum((o.cost.flops * o.count for o in gemms), start=np.zeros(()))
    moved = sum((o.cost.bytes * o.count for o in gemms), start=np.zeros(()))
    out: Array = flops / moved
    return out


def ridge_new_tokens(spec: ModelSpec, w: Workload, roofs: Roofs) -> float:
    """Tokens per sequence (k + 1) at which the verify GEMMs reach the ridge (inf if never).

    With F FLOPs and A activation bytes per token and W weight bytes for the weight-bearing
    GEMMs at batch B, intensity I(n) = F·B·n / (W + A·B·n) reaches the ridge I* at
    n* = I*·W / (B·(F − I*·A)).
    """
    one = evaluate(spec, replace(w, phase=Phase.DECODE, decode_new=1), roofs)
    gemms = [t.op for t in one.ops if t.op.cost.unit == "tensor" and np.any(t.op.cost.weight_bytes > 0)]
    tokens = float(np.asarray(w.batch))
    f = sum(float(o.cost.flops) * o.count for o in gemms) / tokens
    a = sum(float(o.cost.act_in_bytes + o.cost.act_out_bytes) * o.count for o in gemms) / tokens
    weights = sum(float(o.cost.weight_bytes) * o.count for o in gemms)
    ridge = roofs.ridge(w.compute)
    if f - ridge * a <= 0:
        return math.inf
    return ridge * weights / (tokens * (f - ridge * a))


def ridge_table(spec: ModelSpec, w: Workload, roofs: Roofs, max_new: int = 16) -> list[dict[str, float | str]]:
    """Per k + 1 = 1..max_new: verify step time, GEMM and step intensity, and the step's bound."""
    from rooftop.analytic.summary import totals_at

    rows: list[dict[str, float | str]] = []
    for n in range(1, max_new + 1):
        ev = evaluate(spec, replace(w, phase=Phase.DECODE, decode_new=n), roofs)
        t = totals_at(ev)
        rows.append(
            {
                "new_tokens": n,
                "verify_s": t.time_s,
                "gemm_intensity": float(gemm_intensity(ev)),
                "step_intensity": t.flops / t.bytes,
                "bound": t.bound,
            }
        )
    return rows
