"""Chunked prefill and mixed steps: decode sequences and a prefill chunk in one step's token budget.

Conventions (docs/analytic.md, "Chunked prefill"), after vLLM's scheduler:

* a step holds at most ``budget`` tokens (``max_num_batched_tokens``); the ``decode_batch``
  running sequences are scheduled first (one token each), the rest of the budget goes to one
  prompt: chunk = budget − decode_batch;
* a prompt of P tokens (``cached_prefix`` already cached) takes ⌈(P − prefix) / chunk⌉ steps; chunk i
  attends to the prefix and the i chunks before it (past = prefix + i × chunk);
* a mixed step is one pass over the weights: every operator's cost is the decode part's plus the
  chunk's, except the weights, which are read once (max of the two, not their sum);
* TTFT = Σ mixed step times (no queueing); the TPOT the running decodes see while the prompt is
  chunked is the mean mixed step time; the longest gap between two of their tokens is the
  longest mixed step. Unchunked, the prompt runs as one step between two decode steps, so the
  running decodes wait prefill + decode step for their next token.
"""

from __future__ import annotations

import math

import msgspec
import numpy as np
from msgspec.structs import replace

from rooftop.analytic.cost import Array
from rooftop.analytic.decompose import Op
from rooftop.analytic.engine import Evaluation, Transform, evaluate, roof_rates, same, time_op
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError
from rooftop.models.spec import ModelSpec


class ChunkedPrefill(msgspec.Struct, frozen=True):
    """The chunk steps of one prompt beside ``decode_batch`` running sequences."""

    budget_tokens: int
    decode_batch: int
    chunk_tokens: int
    step_s: Array  # (chunks,) mixed step times
    decode_step_s: float  # a decode-only step of the running sequences (0 when there are none)
    prefill_s: float  # the prompt as one unchunked step

    @property
    def chunks(self) -> int:
        """Steps the prompt takes."""
        return int(np.size(self.step_s))

    @property
    def ttft_s(self) -> float:
        """Σ mixed step times."""
        return float(np.sum(self.step_s))

    @property
    def tpot_during_s(self) -> float:
        """Mean mixed step time: the TPOT running decodes see while the prompt is chunked."""
        return float(np.mean(self.step_s))

    @property
    def max_itl_s(self) -> float:
        """The longest gap between two tokens of a running decode (the longest mixed step)."""
        return float(np.max(self.step_s))

    @property
    def unchunked_itl_s(self) -> float:
        """The gap unchunked: the prompt's own step plus the next decode step."""
        return self.prefill_s + self.decode_step_s


def merge_step(decode: Evaluation | None, chunk: Evaluation, roofs: Roofs) -> Array:
    """Mixed step time: per operator, decode + chunk costs with the weights read once."""
    if decode is None:
        return chunk.time_s
    rates = roof_rates(roofs, chunk.workload)
    total: Array = np.zeros(())
    d_ops = {t.op.name: t.op for t in decode.ops}
    for t in chunk.ops:
        d = d_ops.get(t.op.name)
        cost = t.op.cost
        if d is not None:
            both = cost + d.cost
            cost = replace(both, weight_bytes=np.maximum(cost.weight_bytes, d.cost.weight_bytes))
        link = math.isfinite(t.link_bytes_per_s)  # on the link the operator was timed on (NVLink, or EP's NIC)
        op_rates = {**rates, "link": t.link_bytes_per_s} if link else rates
        timed = time_op(Op(t.op.name, t.op.kind, t.op.count, cost, t.op.group), op_rates, link)
        total = total + timed.time_s * t.op.count
    return total


def chunk_starts(prompt: int, prefix: int, chunk: int) -> tuple[Array, Array]:
    """(past, new) tokens of each chunk of a prompt: past = prefix + i·chunk, new ≤ chunk."""
    todo = prompt - prefix
    n = math.ceil(todo / chunk)
    past = prefix + chunk * np.arange(n, dtype=np.float64)
    new = np.minimum(chunk, prompt - past)
    return past, new


def chunked_prefill(
    spec: ModelSpec,
    roofs: Roofs,
    w: Workload,
    budget_tokens: int,
    decode_batch: int,
    context: int,
    transform: Transform = same,
) -> ChunkedPrefill:
    """Chunk one prompt of ``w.prompt`` tokens beside ``decode_batch`` decodes at ``context``.

    ``transform`` rewrites every evaluation (expert parallelism) before the steps are merged.
    """
    chunk = budget_tokens - decode_batch
    if chunk < 1:
        raise WorkloadError(
            f"a token budget of {budget_tokens} leaves no room for a prefill chunk beside {decode_batch} decodes"
        )
    prompt = int(np.asarray(w.prompt))
    prefix = int(np.asarray(w.cached_prefix))
    past, new = chunk_starts(prompt, prefix, chunk)
    chunk_w = replace(w, phase=Phase.PREFILL, batch=1, prompt=past + new, cached_prefix=past)
    chunks = transform(evaluate(spec, chunk_w, roofs))
    decode = None
    decode_s = 0.0
    if decode_batch > 0:
        decode_w = replace(w, phase=Phase.DECODE, batch=decode_batch, context=context, decode_new=1)
        decode = transform(evaluate(spec, decode_w, roofs))
        decode_s = float(decode.time_s)
    whole = transform(evaluate(spec, replace(w, phase=Phase.PREFILL, batch=1), roofs))
    step = np.atleast_1d(merge_step(decode, chunks, roofs))
    return ChunkedPrefill(budget_tokens, decode_batch, chunk, step, decode_s, float(whole.time_s))
