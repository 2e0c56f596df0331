"""Serving techniques on an analysed workload: speculative decoding, chunked prefill, EP, PP, disaggregation.

``analyze`` with technique flags adds one section per technique to each result (docs/analytic.md
states each convention); expert parallelism also reshapes the points and totals themselves (the
experts sharded, the all-to-alls added). ``--what-if`` then ranks every remedy on top.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import numpy as np
from msgspec.structs import replace

from rooftop.analytic.chunked import chunked_prefill
from rooftop.analytic.disaggregation import size_pools
from rooftop.analytic.engine import Evaluation
from rooftop.analytic.expert_parallel import PRESETS, ExpertParallel, a2a_time_s, apply_ep, bytes_per_token
from rooftop.analytic.expert_parallel import weights_bytes_per_gpu as ep_weights
from rooftop.analytic.pipeline import plan
from rooftop.analytic.speculative import ridge_new_tokens, ridge_table, speculate
from rooftop.api.analysis import analyze_one, check_context
from rooftop.api.whatif import Options, with_what_if
from rooftop.api.whatif_levers import decode_of, prefill_of
from rooftop.core.artifact import Run
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.models.spec import ModelSpec


class Techniques(msgspec.Struct, frozen=True):
    """Which techniques to model (None/False: not asked); ``opts`` carries their parameters."""

    opts: Options
    speculative: bool = False
    chunk: bool = False
    ep: bool = False
    pp: bool = False
    disaggregate: bool = False
    rate_per_s: float | None = None
    what_if: bool = False

    @property
    def asked(self) -> bool:
        """Whether any technique or the what-if was asked for."""
        return self.what_if or self.speculative or self.chunk or self.ep or self.pp or self.disaggregate

    def layout(self) -> ExpertParallel:
        """The EP layout of the options."""
        o = self.opts
        return ExpertParallel(o.ep, o.ep_link, o.a2a, o.ep_imbalance)


def speculative_section(spec: ModelSpec, roofs: Roofs, w: Workload, o: Options) -> dict[str, Any]:
    """k, α, drafter, E, verify and draft times, TPOT, speed-up, and where the verify GEMMs cross the ridge."""
    d = decode_of(w)
    sp = speculate(spec, d, roofs, o.spec_k, o.spec_alpha, o.drafter)
    batch = float(np.asarray(d.batch))
    return {
        "k": sp.k,
        "alpha": sp.alpha,
        "drafter": sp.drafter,
        "expected_tokens": sp.expected_tokens,
        "plain_step_s": float(sp.plain_step_s),
        "verify_s": float(sp.verify_s),
        "draft_step_s": float(sp.draft_step_s),
        "tpot_s": float(sp.tpot_s),
        "tokens_per_s": batch / float(sp.tpot_s),
        "speedup": float(sp.speedup),
        "draft_weight_bytes": sp.draft_weight_bytes,
        "ridge_new_tokens": ridge_new_tokens(spec, d, roofs),
        "ridge_table": ridge_table(spec, d, roofs, max(16, sp.k + 1)),
    }


def chunked_section(spec: ModelSpec, roofs: Roofs, w: Workload, o: Options) -> dict[str, Any]:
    """Chunks, TTFT chunked and not, the TPOT of running decodes while a prompt is chunked."""
    decodes = int(np.asarray(w.batch)) if w.phase is Phase.DECODE else 0
    one = replace(prefill_of(w), batch=1)
    c = chunked_prefill(spec, roofs, one, o.chunk_tokens, decodes, int(np.asarray(decode_of(w).context)))
    return {
        "budget_tokens": c.budget_tokens,
        "decode_batch": c.decode_batch,
        "chunk_tokens": c.chunk_tokens,
        "chunks": c.chunks,
        "step_s": [float(x) for x in c.step_s],
        "ttft_s": c.ttft_s,
        "unchunked_ttft_s": c.prefill_s,
        "decode_step_s": c.decode_step_s,
        "tpot_during_s": c.tpot_during_s,
        "max_itl_s": c.max_itl_s,
        "unchunked_itl_s": c.unchunked_itl_s,
    }


def ep_section(spec: ModelSpec, ev: Evaluation, layout: ExpertParallel, weights_bytes: float) -> dict[str, Any]:
    """All-to-all bytes per token per MoE layer (with the arithmetic), their time, weights per GPU."""
    per = bytes_per_token(spec, layout)
    p = PRESETS[layout.preset]
    assert spec.moe is not None
    k, h = f"{spec.moe.active_k:g}", spec.hidden
    scale = p.dispatch_scale_bytes(h)
    arithmetic = {
        "dispatch": f"{k} × ({h} × {p.dispatch_dtype}" + (f" + {h}/128 × 4 B scales)" if scale else ")"),
        "combine": f"{k} × {h} × {p.combine_dtype}",
        "remote_share": f"({layout.ep} − 1)/{layout.ep}",
    }
    return {
        "ep": layout.ep,
        "link": layout.link,
        "preset": layout.preset,
        "dispatch_dtype": p.dispatch_dtype,
        "combine_dtype": p.combine_dtype,
        "imbalance": layout.imbalance,
        "moe_layers": spec.moe_layers,
        **per,
        "arithmetic": arithmetic,
        "all_to_all_s": a2a_time_s(ev),
        "weights_bytes_per_gpu": ep_weights(ev.workload, spec, weights_bytes, layout),
    }


def ep_memory(memory: dict[str, Any], weights_bytes: float, batch: float) -> dict[str, Any]:
    """The memory record with EP's weights per GPU: free bytes, fit and max batch follow."""
    if not memory or memory.get("weights_bytes") is None:
        return memory
    free = memory["free_bytes"] + memory["weights_bytes"] - weights_bytes
    per_sequence = (memory["kv_cache_bytes"] + memory["activation_bytes"]) / batch
    room = max(memory["usable_bytes"] - weights_bytes, 0.0)
    max_batch = int(room // per_sequence) if per_sequence > 0 else memory.get("max_batch")
    return {**memory, "weights_bytes": weights_bytes, "free_bytes": free, "fits": free >= 0, "max_batch": max_batch}


def pipeline_section(spec: ModelSpec, roofs: Roofs, w: Workload, o: Options) -> dict[str, Any]:
    """Stages, per-stage time, bubble, point-to-point bytes, step time and tokens/s."""
    batch = int(np.asarray(w.batch))
    m = o.pp if batch % o.pp == 0 else 1
    p = plan(spec, w, roofs, o.pp, m)
    return {
        "stages": p.stages,
        "microbatches": p.microbatches,
        "layers_per_stage": list(p.layers_per_stage),
        "stage_s": list(p.stage_s),
        "bubble": p.bubble,
        "p2p_bytes": p.p2p_bytes,
        "p2p_s": p.p2p_s,
        "step_s": p.step_s,
        "tokens_per_s": p.tokens_per_s,
    }


def disaggregation_section(spec: ModelSpec, roofs: Roofs, w: Workload, o: Options, rate: float) -> dict[str, Any]:
    """KV transfer per request and pool sizes for ``rate`` requests/s under the TPOT SLO."""
    pools = size_pools(spec, roofs, w, rate, o.output_tokens, o.kv_link, o.slo.tpot_s, o.memory_utilization)
    return {
        "rate_per_s": rate,
        "link": o.kv_link,
        "kv_transfer_bytes": pools.transfer_bytes,
        "kv_transfer_s": pools.transfer_s,
        "prefill_s": pools.prefill_s,
        "ttft_s": pools.ttft_s,
        "decode_batch": pools.decode_batch,
        "tpot_s": pools.tpot_s,
        "prefill_gpus": pools.prefill_gpus,
        "decode_gpus": pools.decode_gpus,
        "ttft_slo_met": o.slo.ttft_s is None or pools.ttft_s <= o.slo.ttft_s,
        "tokens_per_s_per_gpu": pools.tokens_per_s_per_gpu,
    }


def sections(spec: ModelSpec, roofs: Roofs, w: Workload, t: Techniques) -> dict[str, Any]:
    """The technique sections of one workload's result."""
    o = t.opts
    out: dict[str, Any] = {}
    if t.speculative:
        out["speculative"] = speculative_section(spec, roofs, w, o)
    if t.chunk:
        out["chunked"] = chunked_section(spec, roofs, w, o)
    if t.pp:
        out["pipeline"] = pipeline_section(spec, roofs, w, o)
    if t.disaggregate and t.rate_per_s is not None:
        out["disaggregation"] = disaggregation_section(spec, roofs, w, o, t.rate_per_s)
    return out


def analyze_techniques(spec: ModelSpec, roofs: Roofs, workloads: Sequence[Workload], t: Techniques) -> Run:
    """``analyze`` with the techniques asked for, and the what-if when asked."""
    check_context(spec, workloads)
    layout = t.layout() if t.ep else None
    results = []
    for w in workloads:
        holder: dict[str, Evaluation] = {}

        def shard(ev: Evaluation, holder: dict[str, Evaluation] = holder) -> Evaluation:
            holder["ev"] = apply_ep(ev, layout) if layout is not None else ev
            return holder["ev"]

        r = analyze_one(spec, w, roofs, t.opts.memory_utilization, shard)
        extra = dict(r.extra)
        memory = r.memory
        if layout is not None:
            ep = ep_section(spec, holder["ev"], layout, float(r.memory.get("weights_bytes", 0.0)))
            extra["expert_parallel"] = ep
            memory = ep_memory(r.memory, ep["weights_bytes_per_gpu"], float(np.asarray(w.batch)))
        extra.update(sections(spec, roofs, w, t))
        r = replace(r, extra=extra, memory=memory)
        if t.what_if:
            r = with_what_if(r, spec, roofs, w, t.opts)
        results.append(r)
    command = "analyze --what-if" if t.what_if else "analyze"
    identity = {"model": spec.describe(), "source": "analytic"}
    return Run(command=command, roofs=roofs, results=tuple(results), identity=identity)
