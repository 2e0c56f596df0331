"""Expert parallelism: routed experts sharded over EP ranks, all-to-all dispatch and combine.

Conventions (docs/analytic.md, "Expert parallelism"), after DeepSeek-V3's serving layout:

* attention is data-parallel over the EP ranks: each rank runs its own ``batch`` sequences, so
  the workload stays per GPU; the routed experts are sharded, E / ep per rank (ep divides E);
* each MoE layer adds a dispatch and a combine all-to-all (:mod:`rooftop.analytic.ops.all_to_all`):
  one copy per (token, routed expert), a share (ep − 1)/ep of them remote, in the preset's dtypes
  (``deepep``: FP8 dispatch with one fp32 scale per 128 channels, BF16 combine), on one link roof:
  ``intra`` (NVLink, per direction) or ``inter`` (the per-GPU NIC, ``network``);
* with uniform routing each rank receives the routed rows of its own tokens, T·top_k; the
  busiest rank receives ``imbalance`` times that (1.0 = perfectly balanced), and the whole step
  waits for it: its expert GEMMs, activations and all-to-all bytes scale by ``imbalance``;
* a rank reads the local experts that any of the ep·T tokens routes to:
  (E/ep)·(1 − (1 − top_k/E)^(ep·T)) of them (uniform, independent routing).
"""

from __future__ import annotations

import msgspec
import numpy as np
from msgspec.structs import replace

from rooftop.analytic.cost import Array, OpCost
from rooftop.analytic.decompose import Op
from rooftop.analytic.engine import Evaluation, OpTiming, roof_rates, time_op
from rooftop.analytic.memory import expert_bytes_share
from rooftop.analytic.ops.gemm import expected_experts
from rooftop.analytic.registry import OpKind, cost
from rooftop.core.workload import Workload
from rooftop.dtypes import dtype
from rooftop.errors import CatalogError, WorkloadError
from rooftop.models.spec import ModelSpec

EXPERT_OPS = ("experts_gate_up", "experts_down")
LINKS = {"intra": "link", "inter": "network"}
SCALE_BLOCK = 128  # channels per fp32 scale of an FP8 dispatch (DeepEP)
SCALE_BYTES = 4.0


class A2APreset(msgspec.Struct, frozen=True):
    """The dtypes of the two all-to-alls of a MoE layer."""

    name: str
    dispatch_dtype: str
    combine_dtype: str

    def dispatch_scale_bytes(self, width: int) -> float:
        """Scale bytes per copy: one fp32 per 128 channels when the dispatch is 8-bit, else 0."""
        return width / SCALE_BLOCK * SCALE_BYTES if dtype(self.dispatch_dtype).bytes < 2 else 0.0


PRESETS = {
    "deepep": A2APreset("deepep", "fp8", "bf16"),
    "bf16": A2APreset("bf16", "bf16", "bf16"),
}


class ExpertParallel(msgspec.Struct, frozen=True):
    """An EP layout: degree, link, all-to-all preset and the busiest rank's load factor."""

    ep: int
    link: str = "intra"  # 'intra' (NVLink) or 'inter' (NIC)
    preset: str = "deepep"
    imbalance: float = 1.0

    def check(self, spec: ModelSpec) -> None:
        """Refuse a dense model, an ep that does not divide the experts, or a bad link/preset."""
        if spec.moe is None:
            raise WorkloadError(f"{spec.name} has no routed experts; expert parallelism needs a MoE model")
        if self.ep < 1 or spec.moe.experts % self.ep:
            raise WorkloadError(f"ep={self.ep} does not divide {spec.name}'s {spec.moe.experts} experts")
        if self.link not in LINKS:
            raise WorkloadError(f"EP link must be one of {', '.join(LINKS)}, not {self.link!r}")
        if self.preset not in PRESETS:
            raise WorkloadError(f"all-to-all preset must be one of {', '.join(PRESETS)}, not {self.preset!r}")
        if self.imbalance < 1.0:
            raise WorkloadError(f"EP load imbalance must be ≥ 1, got {self.imbalance}")


def bytes_per_token(spec: ModelSpec, layout: ExpertParallel) -> dict[str, float]:
    """Dispatch and combine bytes one token sends per MoE layer: all copies and the remote share.

    DeepSeek-V3 (hidden 7168, top-8), deepep: dispatch 8 × (7168 + 7168/128 × 4) = 59,136 B,
    combine 8 × 7168 × 2 = 114,688 B; at ep = 8, 7/8 remote: 51,744 B and 100,352 B.
    """
    layout.check(spec)
    assert spec.moe is not None
    p = PRESETS[layout.preset]
    k, h = spec.moe.active_k, spec.hidden  # zero-computation experts stay on the token's rank
    dispatch = k * (h * dtype(p.dispatch_dtype).bytes + p.dispatch_scale_bytes(h))
    combine = k * h * dtype(p.combine_dtype).bytes
    remote = (layout.ep - 1) / layout.ep
    return {
        "dispatch_bytes": dispatch,
        "combine_bytes": combine,
        "dispatch_remote_bytes": dispatch * remote,
        "combine_remote_bytes": combine * remote,
    }


def _scaled(c: OpCost, factor: float) -> OpCost:
    values = {name: getattr(c, name) * factor for name in c.__struct_fields__ if name != "unit"}
    return OpCost(**values, unit=c.unit)


def _expert_op(op: Op, spec: ModelSpec, tokens: Array, layout: ExpertParallel) -> Op:
    """A routed-expert GEMM on the busiest rank: imbalance × the rows, its local experts' weights."""
    assert spec.moe is not None
    e, k, ep = spec.moe.experts, spec.moe.active_k, layout.ep
    per_expert = op.cost.weight_bytes / expected_experts(tokens, e, k)
    local = e / ep * (1.0 - (1.0 - k / e) ** (ep * tokens))
    c = replace(_scaled(op.cost, layout.imbalance), weight_bytes=local * per_expert)
    return Op(op.name, op.kind, op.count, c, op.group)


def a2a_ops(spec: ModelSpec, ev: Evaluation, layout: ExpertParallel) -> list[Op]:
    """The dispatch and combine operators of every MoE layer, on the busiest rank."""
    assert spec.moe is not None
    p = PRESETS[layout.preset]
    tokens = ev.workload.tokens * layout.imbalance
    shape = {"tokens": tokens, "width": spec.hidden, "top_k": spec.moe.active_k, "ep": layout.ep}
    dispatch = cost(
        OpKind.ALL_TO_ALL,
        **shape,
        elt_bytes=dtype(p.dispatch_dtype).bytes,
        scale_bytes=p.dispatch_scale_bytes(spec.hidden),
    )
    combine = cost(OpKind.ALL_TO_ALL, **shape, elt_bytes=dtype(p.combine_dtype).bytes, reduce=True)
    n = spec.moe_layers
    return [
        Op("ep_dispatch", OpKind.ALL_TO_ALL, n, dispatch, "comm"),
        Op("ep_combine", OpKind.ALL_TO_ALL, n, combine, "comm"),
    ]


def apply_ep(ev: Evaluation, layout: ExpertParallel) -> Evaluation:
    """The evaluation with routed experts sharded over ``layout.ep`` ranks and the all-to-alls added."""
    spec = ev.spec
    layout.check(spec)
    if layout.ep == 1:
        return ev
    level = LINKS[layout.link]
    if not ev.roofs.has_memory(level):
        raise CatalogError(f"{ev.roofs.name} has no {level} bandwidth roof; EP over the {layout.link} link needs one")
    rates = roof_rates(ev.roofs, ev.workload)
    a2a_rates = {**rates, "link": ev.roofs.bandwidth(level)}
    tokens = ev.workload.tokens
    timed: list[OpTiming] = []
    for t in ev.ops:
        if t.op.name in EXPERT_OPS:
            timed.append(time_op(_expert_op(t.op, spec, tokens, layout), rates, ev.workload.tp > 1))
        elif t.op.name == "experts_act":
            op = Op(t.op.name, t.op.kind, t.op.count, _scaled(t.op.cost, layout.imbalance), t.op.group)
            timed.append(time_op(op, rates, ev.workload.tp > 1))
        else:
            timed.append(t)
    timed += [time_op(op, a2a_rates, True) for op in a2a_ops(spec, ev, layout)]
    return replace(ev, ops=tuple(timed))


def weights_bytes_per_gpu(w: Workload, spec: ModelSpec, weight_bytes_tp: float, layout: ExpertParallel) -> float:
    """Weight bytes per GPU when the routed experts are split over ep ranks (the rest over tp only).

    ``weight_bytes_tp`` is the all-weights figure per GPU at ``w``'s tensor parallelism; its routed
    share s (of the bytes, at ``w``'s dtypes: gpt-oss's MXFP4 experts are 94 % of its bytes, 98 % of
    its parameters) becomes s·tp/ep (DP attention: each rank holds every non-expert weight / tp).
    """
    share = expert_bytes_share(spec, w)
    return weight_bytes_tp * (1.0 - share) + weight_bytes_tp * share * w.tp / layout.ep


def a2a_time_s(ev: Evaluation) -> float:
    """Seconds of the all-to-alls in an EP evaluation."""
    return float(sum(np.sum(t.time_s) * t.op.count for t in ev.ops if t.op.kind == OpKind.ALL_TO_ALL))
