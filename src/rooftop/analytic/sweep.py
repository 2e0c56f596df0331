"""Vectorised capacity sweep: decode over a batch × context grid, prefill of the prompt, SLOs, goodput.

One :func:`sweep_grid` call evaluates every cell with a single engine evaluation over numpy
grids (batch on axis 0, context on axis 1), so a million cells take about a second. Per cell:

* ``tpot_s`` — the decode step time at the roofs with ``batch`` sequences at ``context`` cached
  tokens (each sequence emits one token per step, so this is the time per output token);
* ``ttft_s`` — the prefill time of one prompt (batch 1, ``cached_prefix`` tokens already cached),
  without queueing: the same for every cell of a cohort;
* ``fits`` — the KV cache of ``batch`` sequences at ``context`` fits beside the weights
  (:func:`rooftop.analytic.memory.budget`, usable share ``memory_utilization``). A shared prefix
  (prefix caching) is held once, not once per sequence;
* ``tokens_per_s`` — output tokens/s with prefill and decode sharing the GPU one after the
  other (no overlap): a batch of B requests of ``output_tokens`` tokens costs
  B × TTFT + output_tokens × TPOT, so tokens/s = B × out / (B × TTFT + out × TPOT);
* ``goodput`` — ``tokens_per_s`` where every SLO holds and the batch fits, else 0.
"""

from __future__ import annotations

import math

import msgspec
import numpy as np
from msgspec.structs import replace
from numpy.typing import NDArray

from rooftop.analytic.cost import Array
from rooftop.analytic.engine import Evaluation, evaluate
from rooftop.analytic.memory import DEFAULT_MEMORY_UTILIZATION, budget
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError
from rooftop.models.spec import ModelSpec

# bound codes of a cell, in the order the heatmap draws them
BOUND_CODES = ("compute", "memory:weights", "memory:kv", "memory:activations", "link")


class SweepGrid(msgspec.Struct, frozen=True):
    """Every cell of one cohort's sweep; 2-D arrays are [batch, context]."""

    batch: Array  # (B,)
    context: Array  # (C,)
    prompt: int
    output_tokens: int
    cached_prefix: int
    ttft_s: float
    tpot_s: Array  # (B, C)
    flops: Array  # (B, C) decode step FLOPs
    bytes: Array  # (B, C) decode step HBM bytes
    weight_bytes: Array  # (B, C)
    kv_read_bytes: Array  # (B, C)
    bound: Array  # (B, C) index into BOUND_CODES
    max_batch: Array  # (C,) KV admission limit (NaN when the device capacity is unknown)
    gemm_flops_per_sequence: float  # FLOPs of the weight-bearing matrix ops, per sequence
    gemm_weight_bytes: float  # their weight bytes (independent of batch)
    gemm_act_bytes_per_sequence: float  # their activation bytes, per sequence
    ridge_flop_per_byte: float
    peak_flop_per_s: float
    bandwidth_bytes_per_s: float
    decode: Evaluation

    @property
    def shape(self) -> tuple[int, int]:
        """(number of batches, number of contexts)."""
        return (self.batch.size, self.context.size)

    @property
    def fits(self) -> NDArray[np.bool_]:
        """Whether each cell's batch is admitted by the KV cache (True where capacity is unknown)."""
        limit = np.where(np.isnan(self.max_batch), np.inf, self.max_batch)
        return self.batch[:, None] <= limit[None, :]

    @property
    def intensity(self) -> Array:
        """Decode-step FLOP per HBM byte."""
        return self.flops / self.bytes

    @property
    def flop_per_s(self) -> Array:
        """Decode-step FLOP/s at the roofs."""
        return self.flops / self.tpot_s

    @property
    def bytes_per_s(self) -> Array:
        """Decode-step HBM B/s at the roofs."""
        return self.bytes / self.tpot_s

    @property
    def decode_tokens_per_s(self) -> Array:
        """Output tokens/s of pure decode: batch / TPOT."""
        return self.batch[:, None] / self.tpot_s

    @property
    def tokens_per_s(self) -> Array:
        """Output tokens/s with each request's prefill paid serially: B·out / (B·TTFT + out·TPOT)."""
        b = self.batch[:, None]
        out = self.output_tokens
        return b * out / (b * self.ttft_s + out * self.tpot_s)

    def gemm_ridge_batch(self) -> float:
        """Batch where the weight-bearing GEMMs reach the ridge (inf when they never do).

        GEMM intensity I(B) = F·B / (W + A·B) with F FLOPs and A activation bytes per sequence and
        W weight bytes; I(B) = I* solves to B* = I*·W / (F − I*·A).
        """
        denominator = self.gemm_flops_per_sequence - self.ridge_flop_per_byte * self.gemm_act_bytes_per_sequence
        if denominator <= 0:
            return math.inf
        return self.ridge_flop_per_byte * self.gemm_weight_bytes / denominator


def _grid(values: object, name: str) -> Array:
    arr = np.asarray(values, dtype=np.float64).ravel()
    if arr.size == 0:
        raise WorkloadError(f"the sweep's {name} grid is empty")
    if np.any(np.diff(arr) <= 0):
        raise WorkloadError(f"the sweep's {name} grid must be strictly increasing")
    return arr


def bound_codes(ev: Evaluation, shape: tuple[int, int]) -> Array:
    """0 compute, 1 memory:weights, 2 memory:kv, 3 memory:activations, 4 link — per cell."""
    engine_bound = np.broadcast_to(ev.bound, shape)
    weights = np.broadcast_to(ev.total("weight_bytes"), shape)
    kv = np.broadcast_to(ev.total("kv_read_bytes") + ev.total("kv_write_bytes"), shape)
    act = np.broadcast_to(ev.total("act_in_bytes") + ev.total("act_out_bytes"), shape)
    memory_kind = np.where((weights >= kv) & (weights >= act), 1, np.where(kv >= act, 2, 3))
    return np.where(engine_bound == 0, 0, np.where(engine_bound == 1, memory_kind, 4)).astype(np.float64)


def _admission(spec: ModelSpec, w: Workload, capacity_bytes: float, memory_utilization: float) -> Array:
    """KV admission limit per context (1, C) -> (C,); a shared prefix is stored once."""
    one = replace(w, batch=1)
    mem = budget(spec, one, capacity_bytes, memory_utilization)
    if not math.isfinite(capacity_bytes):
        return np.full(np.shape(w.context), np.nan, dtype=np.float64).ravel()
    kv_per_seq = np.asarray(mem.kv_bytes_per_sequence, dtype=np.float64)
    act_per_seq = np.asarray(mem.activation_bytes, dtype=np.float64)
    prefix = float(np.asarray(w.cached_prefix))
    after = np.asarray(w.kv_tokens_after, dtype=np.float64)
    shared = kv_per_seq * np.minimum(prefix, after) / after
    room = np.maximum(mem.usable_bytes - mem.weights_bytes - shared, 0)
    return np.floor(room / (kv_per_seq - shared + act_per_seq)).ravel()


def sweep_grid(
    spec: ModelSpec,
    roofs: Roofs,
    base: Workload,
    batches: object,
    contexts: object,
    prompt: int,
    output_tokens: int,
    memory_utilization: float = DEFAULT_MEMORY_UTILIZATION,
) -> SweepGrid:
    """Evaluate decode over ``batches`` × ``contexts`` and the prefill of ``prompt`` (see module doc)."""
    b = _grid(batches, "batch")
    c = _grid(contexts, "context")
    if output_tokens < 1:
        raise WorkloadError(f"output tokens must be ≥ 1, got {output_tokens}")
    prefix = int(np.asarray(base.cached_prefix))
    decode_w = replace(base, phase=Phase.DECODE, batch=b[:, None], context=c[None, :], prompt=prompt)
    prefill_w = replace(base, phase=Phase.PREFILL, batch=1, prompt=prompt, cached_prefix=prefix)
    shape = (b.size, c.size)
    ev = evaluate(spec, decode_w, roofs)
    ttft = float(evaluate(spec, prefill_w, roofs).time_s)

    # the weight-bearing matrix ops, evaluated at one sequence (they do not see the context)
    one = evaluate(spec, replace(decode_w, batch=1, context=int(c[0])), roofs)
    gemms = [t.op for t in one.ops if t.op.cost.unit == "tensor" and np.any(t.op.cost.weight_bytes > 0)]
    gemm_flops = float(sum(float(o.cost.flops) * o.count for o in gemms))
    gemm_weights = float(sum(float(o.cost.weight_bytes) * o.count for o in gemms))
    gemm_act = float(sum(float(o.cost.act_in_bytes + o.cost.act_out_bytes) * o.count for o in gemms))

    def grid(x: Array) -> Array:
        return np.ascontiguousarray(np.broadcast_to(x, shape), dtype=np.float64)

    return SweepGrid(
        batch=b,
        context=c,
        prompt=int(prompt),
        output_tokens=int(output_tokens),
        cached_prefix=prefix,
        ttft_s=ttft,
        tpot_s=grid(ev.time_s),
        flops=grid(ev.total("flops")),
        bytes=grid(ev.bytes),
        weight_bytes=grid(ev.total("weight_bytes")),
        kv_read_bytes=grid(ev.total("kv_read_bytes")),
        bound=bound_codes(ev, shape),
        max_batch=_admission(spec, replace(decode_w, context=c), roofs.capacity_bytes, memory_utilization),
        gemm_flops_per_sequence=gemm_flops,
        gemm_weight_bytes=gemm_weights,
        gemm_act_bytes_per_sequence=gemm_act,
        ridge_flop_per_byte=roofs.ridge(base.compute),
        peak_flop_per_s=roofs.peak(base.compute),
        bandwidth_bytes_per_s=roofs.bandwidth("hbm"),
        decode=ev,
    )
