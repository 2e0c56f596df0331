"""Live accounting of one metrics window: engine counters → FLOPs, bytes, MFU and MBU per phase.

Live MFU/MBU per phase = token rates × the analytic FLOPs and bytes per token of the model
(api/live_model.py) ÷ the hardware's roofs. Per window:

* prefill FLOP/s = computed prompt tokens/s × model FLOPs per prompt token. ``bench`` knows each
  request's prompt length and averages that per-token cost over the requests' own lengths
  (attention is quadratic in length: the mean length would undercount a mix); ``watch`` uses the
  window's mean length, a lower bound, and reports the interval the engine's prompt-length
  histogram allows (``prefill_flops_bounds``, api/prompt_mix.py);
* decode FLOP/s = decode tokens/s × model FLOPs per token at the mean decode context (``bench``:
  the token-weighted mean of every request's contexts, exact since the cost is affine in it),
  where decode tokens = generated − finished requests (each request's first token comes out of
  its prefill);
* MBU = (weight bytes + KV bytes read) per second over HBM bandwidth.

Where vLLM exposes ``estimated_flops_per_gpu_total`` we recount the window in vLLM's convention
(matmuls only; the full q×context score rectangle, not causal pairs) and report the ratio.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from rooftop.api.live_model import LiveModel, PerToken
from rooftop.api.prompt_mix import MixCost, PromptMix, bounds
from rooftop.core.jsonenc import to_plain
from rooftop.serving.watch import Window


class Tokens(msgspec.Struct, frozen=True):
    """Tokens of a window: prompt tokens computed, decode tokens, all generated, requests finished."""

    prefill: float
    decode: float
    generated: float
    requests: float


class ByPhase(msgspec.Struct, frozen=True):
    """One quantity per phase."""

    prefill: float
    decode: float

    @property
    def total(self) -> float:
        """prefill + decode."""
        return self.prefill + self.decode


class Utilisation(msgspec.Struct, frozen=True):
    """A share of a roof per phase and in all (None where the window has no duration)."""

    prefill: float | None
    decode: float | None
    total: float | None


class CrossCheck(msgspec.Struct, frozen=True):
    """Our FLOPs recounted in vLLM's convention beside the engine's own estimate."""

    engine_flops: float
    ours_engine_convention_flops: float
    ours_model_flops: float
    ratio: float | None
    engine_mfu: float | None


class Accounting(msgspec.Struct, frozen=True):
    """FLOPs, bytes, MFU and MBU per phase over one window (the numbers behind `watch`)."""

    interval_s: float
    tokens: Tokens
    mean_prompt_tokens: float
    mean_output_tokens: float
    batch: float
    flops: ByPhase
    bytes: ByPhase
    useful_bytes: ByPhase
    mfu: Utilisation
    mbu: Utilisation
    cross_check: CrossCheck | None = None
    prompt_mix: str = "mean length"  # or "per request" (bench: every request's own length)
    prefill_flops_bounds: tuple[float | None, float | None] | None = None  # watch: from the length histogram

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``cross_check`` only when the engine gave its estimate)."""
        out: dict[str, Any] = to_plain(self)  # msgspec walks the Structs in C
        if self.cross_check is None:
            del out["cross_check"]
        return out


def finite(x: float) -> float | None:
    """``x`` when finite, else None (JSON null)."""
    return x if isinstance(x, float | int) and math.isfinite(x) else None


def _mean(w: Window, hist_key: str, delta_key: str, requests: float) -> float | None:
    h = w.histograms.get(hist_key)
    if h is not None and h.count > 0:
        return h.sum / h.count
    if delta_key in w.deltas and requests > 0:
        return w.deltas[delta_key] / requests
    return None


def _share(values: ByPhase, seconds: float, roof: float) -> Utilisation:
    if seconds <= 0:
        return Utilisation(None, None, None)
    return Utilisation(*(finite(v / seconds / roof) for v in (values.prefill, values.decode, values.total)))


def _tokens(w: Window, include_cached: bool) -> Tokens:
    requests = w.deltas.get("requests_finished", 0.0)
    cached = w.deltas.get("cached_prompt_tokens", 0.0) if include_cached else 0.0
    computed = max(0.0, w.deltas.get("prompt_tokens", 0.0) - cached)
    generated = w.deltas.get("generation_tokens", 0.0)
    decode_tokens = max(0.0, generated - requests) if requests else generated
    return Tokens(computed, decode_tokens, generated, requests)


def account(
    w: Window,
    live: LiveModel,
    include_cached: bool = True,
    default_prompt: float = 512.0,
    mix: PromptMix | None = None,
) -> Accounting:
    """FLOPs, bytes, MFU and MBU per phase over one window (``mix``: bench's per-request lengths)."""
    t = w.interval_s
    tok = _tokens(w, include_cached)
    mean_prompt = _mean(w, "prompt_len", "prompt_tokens", tok.requests) or default_prompt
    mean_output = _mean(w, "output_len", "generation_tokens", tok.requests) or 1.0
    n = max(1, w.replicas)  # data-parallel engines: each runs 1/n of the tokens on its own GPUs
    batch = max(1.0, w.gauges.get("requests_running", 1.0) / n)
    pre: PerToken | MixCost = live.prefill(mean_prompt) if mix is None else mix.prefill(live.prefill)
    context = mix.decode_context() if mix is not None else None
    if context is None:
        context = mean_prompt + max(0.0, mean_output - 2.0) / 2.0
    dec = live.decode(context, batch)
    peak = live.roofs.peak(live.base.compute) * n
    flops = ByPhase(tok.prefill * pre.model_flops, tok.decode * dec.model_flops)
    useful = ByPhase(tok.prefill * pre.useful_bytes, tok.decode * dec.useful_bytes)
    return Accounting(
        interval_s=t,
        tokens=tok,
        mean_prompt_tokens=mean_prompt,
        mean_output_tokens=mean_output,
        batch=batch,
        flops=flops,
        bytes=ByPhase(tok.prefill * pre.bytes, tok.decode * dec.bytes),
        useful_bytes=useful,
        mfu=_share(flops, t, peak),
        mbu=_share(useful, t, live.roofs.bandwidth("hbm") * n),
        cross_check=_cross_check(w, tok, pre, dec, flops.total, peak),
        prompt_mix="mean length" if mix is None else "per request",
        prefill_flops_bounds=None if mix is not None else _bounds(w, tok, live),
    )


def _bounds(w: Window, tok: Tokens, live: LiveModel) -> tuple[float | None, float | None] | None:
    """The prefill FLOPs the prompt-length histogram allows, scaled to the computed prompt tokens."""
    hist = w.histograms.get("prompt_len")
    found = bounds(live.prefill, hist)
    if found is None or hist is None or hist.sum <= 0:
        return None
    scale = tok.prefill / hist.sum
    return finite(found[0] * scale), finite(found[1] * scale)


def _cross_check(
    w: Window, tok: Tokens, pre: PerToken | MixCost, dec: PerToken, model_flops: float, peak: float
) -> CrossCheck | None:
    if "estimated_flops" not in w.deltas:
        return None
    ours = tok.prefill * pre.matmul_flops_full + tok.decode * dec.matmul_flops_full
    theirs = w.deltas["estimated_flops"]
    t = w.interval_s
    return CrossCheck(
        engine_flops=theirs,
        ours_engine_convention_flops=ours,
        ours_model_flops=model_flops,
        ratio=finite(ours / theirs) if theirs else None,
        engine_mfu=finite(theirs / t / peak) if t > 0 else None,
    )
