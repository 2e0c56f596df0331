"""Serving techniques over a sweep grid, and the what-if of a cohort's operating point.

On every cell at once (numpy grids, so sweeps keep their speed):

* ``--spec-k``: TPOT is the speculative TPOT (verify + k drafter steps) / E; the cell's FLOPs and
  bytes are the verify step's per expected token, so FLOP/s and B/s stay consistent with TPOT;
* ``--ep``: the decode step has its experts sharded and the all-to-alls added (expert_parallel);
* ``--chunk``: TTFT is the prompt's chunked prefill (its chunks alone; no decodes beside it).

Pipeline stages and disaggregation change how many GPUs a cell uses, not one cell's step: they
are answered by ``--what-if`` at the operating point (and ``analyze --pp/--rate``).
"""

from __future__ import annotations

import numpy as np
from msgspec.structs import replace

from rooftop.analytic.chunked import chunked_prefill
from rooftop.analytic.speculative import speculate
from rooftop.analytic.sweep import SweepGrid, bound_codes
from rooftop.api.techniques import Techniques
from rooftop.api.whatif import attach, what_if
from rooftop.core.artifact import Result
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.models.spec import ModelSpec


def transform_grid(grid: SweepGrid, spec: ModelSpec, roofs: Roofs, t: Techniques) -> SweepGrid:
    """``grid`` with the techniques of ``t`` applied to every cell."""
    o = t.opts
    shape = grid.shape

    def cells(x: object) -> np.ndarray:
        return np.ascontiguousarray(np.broadcast_to(np.asarray(x, dtype=np.float64), shape))

    if t.ep:
        from rooftop.analytic.expert_parallel import apply_ep

        ev = apply_ep(grid.decode, t.layout())
        grid = replace(
            grid,
            tpot_s=cells(ev.time_s),
            flops=cells(ev.total("flops")),
            bytes=cells(ev.bytes),
            bound=bound_codes(ev, shape),
            decode=ev,
            max_batch=ep_admission(grid, spec, roofs, t),
        )
    if t.speculative:
        sp = speculate(spec, grid.decode.workload, roofs, o.spec_k, o.spec_alpha, o.drafter)
        e = sp.expected_tokens
        grid = replace(
            grid,
            tpot_s=cells(sp.tpot_s),
            flops=cells(sp.verify.total("flops") / e),
            bytes=cells(sp.verify.bytes / e),
            bound=bound_codes(sp.verify, shape),
        )
    if t.chunk:
        base = grid.decode.workload
        prompt = replace(base, phase=Phase.PREFILL, batch=1, prompt=grid.prompt, cached_prefix=grid.cached_prefix)
        grid = replace(grid, ttft_s=chunked_prefill(spec, roofs, prompt, o.chunk_tokens, 0, 0).ttft_s)
    return grid


def ep_admission(grid: SweepGrid, spec: ModelSpec, roofs: Roofs, t: Techniques) -> np.ndarray:
    """KV admission per context with EP's weights per GPU (a shared prefix held once, as the sweep does)."""
    from rooftop.analytic.expert_parallel import weights_bytes_per_gpu
    from rooftop.analytic.memory import budget

    w = replace(grid.decode.workload, batch=1, context=grid.context)
    mem = budget(spec, w, roofs.capacity_bytes, t.opts.memory_utilization)
    if not np.isfinite(roofs.capacity_bytes):
        return grid.max_batch
    kv = np.asarray(mem.kv_bytes_per_sequence, dtype=np.float64)
    after = np.asarray(w.kv_tokens_after, dtype=np.float64)
    shared = kv * np.minimum(grid.cached_prefix, after) / after
    weights = weights_bytes_per_gpu(w, spec, mem.weights_bytes, t.layout())
    room = np.maximum(mem.usable_bytes - weights - shared, 0)
    out: np.ndarray = np.floor(room / (kv - shared + np.asarray(mem.activation_bytes))).ravel()
    return out


def cohort_what_if(
    result: Result, grid: SweepGrid, point: tuple[int, int] | None, spec: ModelSpec, roofs: Roofs, t: Techniques
) -> Result:
    """The what-if of the operating cell (the smallest batch at the operating context when none)."""
    from rooftop.diagnose.sweep import operating_context_index

    i, j = point if point is not None else (0, operating_context_index(grid))
    base = grid.decode.workload
    w = replace(
        base,
        batch=int(grid.batch[i]),
        context=int(grid.context[j]),
        prompt=grid.prompt,
        cached_prefix=grid.cached_prefix,
        decode_new=1,
    )
    found = what_if(spec, roofs, w, t.opts)
    section = {**found.to_dict(), "cell": {"batch": int(grid.batch[i]), "context": int(grid.context[j])}}
    return replace(result, findings=attach(result.findings, found), extra={**result.extra, "what_if": section})
