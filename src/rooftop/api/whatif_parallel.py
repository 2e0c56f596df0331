"""The what-if levers that change how the GPUs are split: TP, EP, PP, and disaggregation."""

from __future__ import annotations

from msgspec.structs import replace

from rooftop.analytic.disaggregation import kv_transfer_bytes, link_rate
from rooftop.analytic.engine import evaluate
from rooftop.analytic.expert_parallel import ExpertParallel, apply_ep
from rooftop.analytic.expert_parallel import weights_bytes_per_gpu as ep_weights
from rooftop.analytic.memory import budget
from rooftop.analytic.pipeline import plan
from rooftop.api.whatif_levers import Context, State, Variant, decode_of, free_bytes, prefill_of, workload_variant
from rooftop.core.points import Phase
from rooftop.errors import RooftopError


def lever_parallel(ctx: Context) -> list[Variant]:
    """TP × 2 (and ÷ 2), EP over the options' ranks for MoE models, PP × the options' stages.

    None when the baseline runs EP already: other splits of an EP layout are not modelled.
    """
    if ctx.opts.ep_in_baseline:
        return []
    out = []
    candidates = [ctx.w.tp * 2, ctx.w.tp // 2]
    if not ctx.base.fits:  # also the smallest TP (up to 8) whose weights and KV fit
        candidates += [tp for tp in (4, 8) if tp > ctx.w.tp * 2]
    for tp in candidates:
        variant = _tp_variant(ctx, tp)
        if variant is not None:
            out.append(variant)
            if not ctx.base.fits and variant.state.fits:
                break
    for make in (_ep_variant, _pp_variant):
        try:
            out += make(ctx)
        except RooftopError:
            continue  # the split does not apply to this model or device
    return out


def _tp_variant(ctx: Context, tp: int) -> Variant | None:
    s = ctx.spec
    if tp < 1 or tp == ctx.w.tp or tp > 8 or s.heads % tp or not ctx.roofs.has_memory("link"):
        return None
    w = replace(ctx.w, tp=tp)
    assumptions = {"tp": tp, "gpus": tp, "link": "intra (NVLink)"}
    return workload_variant(ctx, f"tp {tp}", "parallel", w, assumptions)


def _ep_variant(ctx: Context) -> list[Variant]:
    o = ctx.opts
    s = ctx.spec
    if s.moe is None or o.ep < 2:
        return []
    layout = ExpertParallel(o.ep, o.ep_link, o.a2a, o.ep_imbalance)
    d = apply_ep(evaluate(s, decode_of(ctx.w), ctx.roofs), layout)
    ttft = float(apply_ep(evaluate(s, prefill_of(ctx.w), ctx.roofs), layout).time_s)
    mem = budget(s, decode_of(ctx.w), ctx.roofs.capacity_bytes, o.memory_utilization)
    weights = ep_weights(ctx.w, s, mem.weights_bytes, layout)
    free = free_bytes(s, ctx.roofs, ctx.w, o, weights)
    tpot = float(d.time_s)
    # data-parallel attention: each of the ep ranks runs the workload's batch
    state = State(ttft, tpot, ctx.base.batch * o.ep, ctx.w.tp * o.ep, free >= 0, free, ttft + tpot)
    assumptions = {
        "ep": o.ep,
        "gpus": ctx.w.tp * o.ep,
        "link": o.ep_link,
        "all_to_all": o.a2a,
        "imbalance": o.ep_imbalance,
        "attention": "data-parallel: the batch is per GPU",
    }
    return [Variant(f"ep {o.ep} ({o.ep_link})", "parallel", state, assumptions)]


def _pp_variant(ctx: Context) -> list[Variant]:
    o = ctx.opts
    if o.pp < 2:
        return []
    d = decode_of(ctx.w)
    m = o.pp if ctx.batch % o.pp == 0 else 1
    pipe = plan(ctx.spec, d, ctx.roofs, o.pp, m)
    fill = plan(ctx.spec, prefill_of(ctx.w), ctx.roofs, o.pp, 1)
    mem = budget(ctx.spec, d, ctx.roofs.capacity_bytes, o.memory_utilization)
    free = free_bytes(ctx.spec, ctx.roofs, ctx.w, o, mem.weights_bytes / o.pp)
    gpus = ctx.w.tp * o.pp
    state = State(fill.step_s, pipe.step_s, ctx.base.batch, gpus, free >= 0, free, fill.step_s + pipe.step_s)
    assumptions = {
        "pp": o.pp,
        "gpus": gpus,
        "microbatches": m,
        "bubble": pipe.bubble,
        "stage_s": list(pipe.stage_s),
        "p2p_bytes_per_boundary": pipe.p2p_bytes,
        "kv_per_gpu": "held whole on each stage's GPU (conservative: a stage holds only its layers' KV)",
    }
    return [Variant(f"pp {o.pp}", "parallel", state, assumptions)]


def lever_disaggregate(ctx: Context) -> list[Variant]:
    """Prefill and decode pools: TTFT + KV transfer, decodes never stalled by a prompt."""
    o = ctx.opts
    if ctx.w.phase is not Phase.DECODE:
        return []
    link = o.kv_link if ctx.roofs.has_memory("network" if o.kv_link == "inter" else "link") else "intra"
    if not ctx.roofs.has_memory("link" if link == "intra" else "network"):
        return []
    moved = kv_transfer_bytes(ctx.spec, ctx.w)
    transfer = moved / link_rate(ctx.roofs, link, ctx.w.tp)
    prefill_s = ctx.base.ttft_s
    rate = ctx.batch / (o.output_tokens * ctx.base.tpot_s)  # requests/s that keep one decode instance full
    ratio = rate * prefill_s  # prefill instances per decode instance
    state = replace(ctx.base, ttft_s=prefill_s + transfer, max_itl_s=ctx.base.tpot_s)
    assumptions = {
        "kv_transfer_bytes": moved,
        "kv_transfer_s": transfer,
        "link": link,
        "rate_per_decode_instance": rate,
        "prefill_to_decode_instances": ratio,
        "output_tokens": o.output_tokens,
        "tokens_per_s_per_gpu": "the decode pool's; the prefill pool adds prefill:decode GPUs as stated",
    }
    return [Variant("disaggregated prefill/decode", "disaggregate", state, assumptions)]
