"""Pipeline parallelism: layers split into stages, per-stage time, the bubble, point-to-point bytes.

Conventions (docs/analytic.md, "Pipeline parallelism"):

* ``pp`` stages hold ⌈L/pp⌉ or ⌊L/pp⌋ layers each (the first stages take the remainder); a
  stage's time is its layers × the mean layer time of the step, plus the embedding on the
  first stage and the final norm and lm_head on the last; weights per GPU are divided by pp;
* between stages the hidden state of every token of the step is sent once
  (:mod:`rooftop.analytic.ops.p2p`): tokens × hidden × act bytes, on NVLink (``intra``) or the NIC
  (``inter``);
* the step is split into ``microbatches`` m. Prefill (GPipe-style, one batch through the pipe):
  time = (m + pp − 1) × (slowest stage + send) with the stage times of one micro-batch, bubble
  (pp − 1)/(m + pp − 1). Decode (steady state, m micro-batches cycling): a micro-batch emits one
  token per cycle of max(m, pp) stage slots, so TPOT = max(m, pp) × slot and the bubble is
  1 − m / max(m, pp).
"""

from __future__ import annotations

import msgspec
import numpy as np
from msgspec.structs import replace

from rooftop.analytic.engine import Evaluation, evaluate
from rooftop.analytic.registry import OpKind, cost
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.dtypes import dtype
from rooftop.errors import CatalogError, WorkloadError
from rooftop.models.spec import ModelSpec

LINKS = {"intra": "link", "inter": "network"}
ENDS = {"embedding": "first", "head": "last"}


class PipelinePlan(msgspec.Struct, frozen=True):
    """A pipeline's stages for one step of ``microbatches`` micro-batches (times in seconds)."""

    stages: int
    microbatches: int
    phase: Phase
    layers_per_stage: tuple[int, ...]
    stage_s: tuple[float, ...]  # one micro-batch through each stage
    p2p_bytes: float  # per stage boundary, per micro-batch
    p2p_s: float
    tokens_per_microbatch: float

    @property
    def slot_s(self) -> float:
        """The slowest stage plus one send: the pipeline's clock."""
        return max(self.stage_s) + (self.p2p_s if self.stages > 1 else 0.0)

    @property
    def bubble(self) -> float:
        """Idle share of the stages (see module doc)."""
        m, p = self.microbatches, self.stages
        if self.phase is Phase.PREFILL:
            return (p - 1) / (m + p - 1)
        return 1.0 - m / max(m, p)

    @property
    def step_s(self) -> float:
        """Prefill: the whole batch through the pipe; decode: one token of every micro-batch (TPOT)."""
        m, p = self.microbatches, self.stages
        if self.phase is Phase.PREFILL:
            return (m + p - 1) * self.slot_s
        return max(m, p) * self.slot_s

    @property
    def tokens_per_s(self) -> float:
        """Tokens of all micro-batches per step time."""
        return self.microbatches * self.tokens_per_microbatch / self.step_s


def split_layers(layers: int, stages: int) -> tuple[int, ...]:
    """⌈L/pp⌉ layers on the first L mod pp stages, ⌊L/pp⌋ on the rest."""
    if stages < 1 or stages > layers:
        raise WorkloadError(f"pp={stages} must be between 1 and the model's {layers} layers")
    base, extra = divmod(layers, stages)
    return tuple(base + (1 if i < extra else 0) for i in range(stages))


def stage_times(ev: Evaluation, layers: tuple[int, ...]) -> tuple[float, ...]:
    """Per stage: its layers × the mean layer time, plus the embedding (first) and head (last)."""
    ends = {"first": 0.0, "last": 0.0}
    per_layer = 0.0
    for t in ev.ops:
        total = float(np.sum(t.time_s)) * t.op.count
        where = ENDS.get(t.op.group, "last" if t.op.name == "final_norm" else "")
        if where:
            ends[where] += total
        else:
            per_layer += total
    mean = per_layer / ev.spec.layers
    out = [n * mean for n in layers]
    out[0] += ends["first"]
    out[-1] += ends["last"]
    return tuple(out)


def plan(
    spec: ModelSpec, w: Workload, roofs: Roofs, stages: int, microbatches: int | None = None, link: str = "intra"
) -> PipelinePlan:
    """Split ``w`` (batch split into ``microbatches``, default pp) over ``stages`` pipeline stages."""
    layers = split_layers(spec.layers, stages)
    m = stages if microbatches is None else microbatches
    batch = int(np.asarray(w.batch))
    if m < 1 or batch % m:
        raise WorkloadError(f"{m} micro-batches do not divide the batch of {batch}")
    micro = replace(w, batch=batch // m)
    ev = evaluate(spec, micro, roofs)
    tokens = float(np.asarray(micro.tokens))
    send = cost(OpKind.P2P_SEND, tokens=tokens, width=spec.hidden, act_bytes=dtype(w.act_dtype).bytes)
    p2p_s = 0.0
    if stages > 1:
        level = LINKS.get(link)
        if level is None:
            raise WorkloadError(f"pipeline link must be one of {', '.join(LINKS)}, not {link!r}")
        if not roofs.has_memory(level):
            raise CatalogError(f"{roofs.name} has no {level} bandwidth roof; PP over the {link} link needs one")
        p2p_s = float(send.link_bytes) / roofs.bandwidth(level)
    return PipelinePlan(stages, m, w.phase, layers, stage_times(ev, layers), float(send.link_bytes), p2p_s, tokens)
