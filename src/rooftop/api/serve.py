"""Live serving entry points: engine telemetry and load-generator runs → RooflinePoints (source=live).

Live MFU/MBU per phase = token rates × the analytic FLOPs and bytes per token of the model
(rooftop.analytic) ÷ the hardware's roofs. Per window:

* prefill FLOP/s = computed prompt tokens/s × model FLOPs per prompt token of a prompt of the
  window's mean length (attention causal pairs; the lm_head once per sequence);
* decode FLOP/s = decode tokens/s × model FLOPs per token at the mean decode context, where decode
  tokens = generated − finished requests (each request's first token comes out of its prefill);
* MBU = (weight bytes + KV bytes read) per second over HBM bandwidth, decode steps amortising one
  weight read over the running batch.

Where vLLM exposes ``estimated_flops_per_gpu_total`` we recount the window in vLLM's convention
(matmuls only; the full q×context score rectangle, not causal pairs) and report the ratio.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from rooftop.analytic.engine import evaluate
from rooftop.core.artifact import Result, Run
from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.core.roofs import Roofs
from rooftop.core.totals import Totals
from rooftop.core.workload import Workload
from rooftop.diagnose.engine import Evidence, diagnose
from rooftop.models.spec import ModelSpec
from rooftop.serving.watch import Window

MATMUL_KINDS = ("gemm", "grouped_gemm", "attn_score", "attn_value")


@dataclass(frozen=True)
class PerToken:
    """Analytic cost per token of one phase at given shapes."""

    model_flops: float  # causal pairs (our MFU definition)
    matmul_flops_full: float  # vLLM's convention: matmuls, full q×context rectangle
    useful_bytes: float  # weights + KV read (MBU numerator)
    bytes: float  # all HBM bytes


@dataclass(frozen=True)
class LiveModel:
    """A model on a device, with the workload's dtypes and parallelism, for live accounting."""

    spec: ModelSpec
    roofs: Roofs
    base: Workload
    memo: dict[tuple[str, int, int], PerToken] = field(default_factory=dict, compare=False, repr=False)

    def _cost(self, workload: Workload, tokens: float) -> PerToken:
        ev = evaluate(self.spec, workload, self.roofs)
        full = evaluate(self.spec, replace(workload, causal=False), self.roofs)
        matmul = sum(float(t.op.cost.flops) * t.op.count for t in full.ops if t.op.kind in MATMUL_KINDS)
        useful = float(ev.total("weight_bytes")) + float(ev.total("kv_read_bytes"))
        return PerToken(
            float(ev.total("model_flops")) / tokens, matmul / tokens, useful / tokens, float(ev.bytes) / tokens
        )

    def prefill(self, prompt: float) -> PerToken:
        """Per prompt token, for one sequence of ``prompt`` tokens."""
        return self._memoised("prefill", max(1, round(prompt)), 1)

    def decode(self, context: float, batch: float) -> PerToken:
        """Per generated token, at ``context`` cached tokens with ``batch`` sequences per step."""
        return self._memoised("decode", max(0, round(context)), max(1, round(batch)))

    def _memoised(self, phase: str, length: int, batch: int) -> PerToken:
        key = (phase, length, batch)
        if key not in self.memo:
            if phase == "prefill":
                w = replace(self.base, phase=Phase.PREFILL, batch=1, prompt=length, cached_prefix=0)
                self.memo[key] = self._cost(w, float(length))
            else:
                w = replace(self.base, phase=Phase.DECODE, batch=batch, context=length)
                self.memo[key] = self._cost(w, float(batch))
        return self.memo[key]


def _mean(w: Window, hist_key: str, delta_key: str, requests: float) -> float | None:
    h = w.histograms.get(hist_key)
    if h is not None and h.count > 0:
        return h.sum / h.count
    if delta_key in w.deltas and requests > 0:
        return w.deltas[delta_key] / requests
    return None


def _nan_none(x: float) -> float | None:
    return x if isinstance(x, float | int) and math.isfinite(x) else None


def account(w: Window, live: LiveModel, include_cached: bool = True, default_prompt: float = 512.0) -> dict[str, Any]:
    """FLOPs, bytes, MFU and MBU per phase over one window (the numbers behind `watch`)."""
    t = w.interval_s
    requests = w.deltas.get("requests_finished", 0.0)
    prompt_in = w.deltas.get("prompt_tokens", 0.0)
    cached = w.deltas.get("cached_prompt_tokens", 0.0) if include_cached else 0.0
    computed = max(0.0, prompt_in - cached)
    generated = w.deltas.get("generation_tokens", 0.0)
    decode_tokens = max(0.0, generated - requests) if requests else generated
    mean_prompt = _mean(w, "prompt_len", "prompt_tokens", requests) or default_prompt
    mean_output = _mean(w, "output_len", "generation_tokens", requests) or 1.0
    batch = max(1.0, w.gauges.get("requests_running", 1.0))
    pre = live.prefill(mean_prompt)
    dec = live.decode(mean_prompt + max(0.0, mean_output - 2.0) / 2.0, batch)
    peak = live.roofs.peak(live.base.compute)
    bw = live.roofs.bandwidth("hbm")
    flops = {"prefill": computed * pre.model_flops, "decode": decode_tokens * dec.model_flops}
    useful = {"prefill": computed * pre.useful_bytes, "decode": decode_tokens * dec.useful_bytes}
    moved = {"prefill": computed * pre.bytes, "decode": decode_tokens * dec.bytes}
    out: dict[str, Any] = {
        "interval_s": t,
        "tokens": {"prefill": computed, "decode": decode_tokens, "generated": generated, "requests": requests},
        "mean_prompt_tokens": mean_prompt,
        "mean_output_tokens": mean_output,
        "batch": batch,
        "flops": flops,
        "bytes": moved,
        "useful_bytes": useful,
        "mfu": {p: _nan_none(f / t / peak) if t > 0 else None for p, f in flops.items()},
        "mbu": {p: _nan_none(b / t / bw) if t > 0 else None for p, b in useful.items()},
    }
    out["mfu"]["total"] = _nan_none(sum(flops.values()) / t / peak) if t > 0 else None
    out["mbu"]["total"] = _nan_none(sum(useful.values()) / t / bw) if t > 0 else None
    if "estimated_flops" in w.deltas:
        ours = computed * pre.matmul_flops_full + decode_tokens * dec.matmul_flops_full
        theirs = w.deltas["estimated_flops"]
        out["cross_check"] = {
            "engine_flops": theirs,
            "ours_engine_convention_flops": ours,
            "ours_model_flops": sum(flops.values()),
            "ratio": _nan_none(ours / theirs) if theirs else None,
            "engine_mfu": _nan_none(theirs / t / peak) if t > 0 else None,
        }
    return out


def latency(w: Window) -> dict[str, dict[str, float | None]]:
    """Windowed quantiles of the engine's latency histograms (p50/p90/p99 and mean)."""
    out = {}
    for key in ("ttft_s", "itl_s", "tpot_s", "e2e_s", "queue_s", "prefill_s", "decode_s", "inference_s"):
        h = w.histograms.get(key)
        if h is not None and h.count > 0:
            out[key] = {k: _nan_none(v) for k, v in {**h.quantiles(), "mean": h.mean}.items()}
    return out


def points(w: Window, acc: dict[str, Any], live: LiveModel) -> tuple[RooflinePoint, ...]:
    """One live RooflinePoint per phase with work in the window."""
    dtype = live.base.compute
    out = []
    for phase in ("prefill", "decode"):
        if acc["tokens"][phase] <= 0:
            continue
        out.append(
            RooflinePoint(
                label=f"live {phase}",
                op="serving-window",
                phase=Phase(phase),
                flops=acc["flops"][phase],
                bytes=acc["bytes"][phase],
                time_s=w.interval_s,
                dtype=dtype,
                source=Source.LIVE,
                provenance={
                    "source": w.source,
                    "engine": w.engine,
                    "start_s": w.start_s,
                    "end_s": w.end_s,
                    "tokens": acc["tokens"][phase],
                },
            )
        )
    return tuple(out)


def totals(w: Window, acc: dict[str, Any], live: LiveModel) -> Totals:
    """The window as one Totals record (phase 'live'; time = window wall time)."""
    flops = sum(acc["flops"].values())
    moved = sum(acc["bytes"].values())
    return Totals(
        phase="live",
        time_s=w.interval_s,
        tokens=acc["tokens"]["prefill"] + acc["tokens"]["generated"],
        flops=flops,
        model_flops=flops,
        bytes=moved,
        weight_bytes=float("nan"),
        kv_read_bytes=float("nan"),
        kv_write_bytes=float("nan"),
        activation_bytes=float("nan"),
        link_bytes=0.0,
        mfu=acc["mfu"]["total"] or 0.0,
        hfu=float("nan"),
        mbu=acc["mbu"]["total"] or 0.0,
        bound="",
        peak_flop_per_s=live.roofs.peak(live.base.compute),
        bandwidth_bytes_per_s=live.roofs.bandwidth("hbm"),
    )


def analyse_window(
    w: Window, live: LiveModel | None, include_cached: bool = True, extra: dict[str, Any] | None = None
) -> tuple[dict[str, Any], Result]:
    """A window → (the watch summary dict, a Result with live points, totals and findings)."""
    gauges = dict(w.gauges)
    lat = latency(w)
    summary: dict[str, Any] = {
        "source": w.source,
        "engine": w.engine,
        "window_s": w.interval_s,
        "rates": {
            "prompt_tokens_per_s": _nan_none(w.per_s("prompt_tokens")),
            "generation_tokens_per_s": _nan_none(w.per_s("generation_tokens")),
            "requests_per_s": _nan_none(w.per_s("requests_finished")),
        },
        "gauges": gauges,
        "latency": lat,
        "reset": w.reset,
        "mfu": None,
        "mbu": None,
    }
    pts: tuple[RooflinePoint, ...] = ()
    tot = None
    live_ev: dict[str, Any] = {
        "gauges": gauges,
        "latency": lat,
        "deltas": w.deltas,
        "interval_s": w.interval_s,
        **(extra or {}),
    }
    if live is not None:
        acc = account(w, live, include_cached)
        summary.update(mfu=acc["mfu"], mbu=acc["mbu"], accounting=acc)
        pts = points(w, acc, live)
        tot = totals(w, acc, live)
        live_ev["accounting"] = acc
    roofs = live.roofs if live else _NO_ROOFS
    tp = live.base.tp if live else 1
    findings = diagnose(Evidence(pts, roofs, tot, {"engine": w.engine, "tp": tp}, {"live": live_ev}))
    summary["findings"] = [f.to_dict() for f in findings]
    result = Result(
        workload={"engine": w.engine, "source": w.source, "window_s": w.interval_s},
        points=pts,
        totals=tot,
        findings=tuple(findings),
        extra={"live": _plain(summary)},
    )
    return summary, result


def _plain(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k != "findings"}


_NO_ROOFS = Roofs(name="unknown", vendor="", capacity_bytes=float("nan"), compute=(), memory=())


def live_run(command: str, results: list[Result], live: LiveModel | None, identity: dict[str, Any]) -> Run:
    """Wrap live results in a rooftop.run/1 Run."""
    return Run(
        command=command,
        roofs=live.roofs if live else _NO_ROOFS,
        results=tuple(results),
        identity={"source": "live", **({"model": live.spec.describe()} if live else {}), **identity},
    )


def live_model(
    model: str | None,
    hardware: str,
    dtype: str = "bf16",
    tp: int = 1,
    peak: str | None = None,
    bandwidth: str | None = None,
) -> LiveModel | None:
    """A LiveModel from CLI-style names (None when no --model is given: telemetry only)."""
    if not model:
        return None
    from rooftop.hardware.catalog import get_roofs
    from rooftop.models.presets import resolve_model
    from rooftop.units import parse_bytes_per_s, parse_flop_per_s

    roofs = get_roofs(hardware).with_overrides(
        parse_flop_per_s(peak) if peak else None, parse_bytes_per_s(bandwidth) if bandwidth else None
    )
    base = Workload(weight_dtype=dtype, act_dtype=dtype, kv_dtype=dtype, tp=tp)
    return LiveModel(resolve_model(model), roofs, base)


def snapshot_summary(obs_scalars: dict[str, float], summary: dict[str, Any]) -> dict[str, Any]:
    """The `watch --json` object: engine, samples, rates, mfu, mbu, findings (+ latency, cross_check...)."""
    acc = summary.get("accounting") or {}
    return {
        "engine": summary["engine"],
        "source": summary["source"],
        "samples": obs_scalars,
        "rates": summary["rates"] if summary["window_s"] > 0 else None,
        "mfu": summary["mfu"] if summary["window_s"] > 0 else None,
        "mbu": summary["mbu"] if summary["window_s"] > 0 else None,
        "findings": summary["findings"],
        "window_s": summary["window_s"],
        "latency": summary["latency"],
        "cross_check": acc.get("cross_check"),
        "reset": summary["reset"],
    }


def since_start(obs: Any) -> Window:
    """A single observation as a window from the engine's start (interval unknown: rates are not given)."""
    from rooftop.serving.engines import engine_map

    emap = engine_map(obs.engine)
    deltas = {k: v for k, v in obs.scalars.items() if emap.kind(k) == "counter"}
    gauges = {k: v for k, v in obs.scalars.items() if emap.kind(k) != "counter"}
    return Window(obs.source, obs.engine, obs.time_s, obs.time_s, deltas, gauges, dict(obs.histograms), False)


def served_model_name(base_url: str, timeout_s: float = 10.0) -> str:
    """The first model id that GET /v1/models lists."""
    import httpx

    from rooftop.errors import TelemetryError

    url = base_url.rstrip("/").removesuffix("/v1") + "/v1/models"
    try:
        data = httpx.get(url, timeout=timeout_s).json()
        return str(data["data"][0]["id"])
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError):
        raise TelemetryError(f"{url}: cannot list served models; pass --served-model") from None


def bench_one(
    target: Any,
    requests: list[Any],
    offsets: Any,
    slo: Any,
    live: LiveModel | None,
    timeout_s: float = 300.0,
    max_concurrency: int | None = None,
    on_done: Any = None,
    scrape: bool = True,
) -> tuple[dict[str, Any], Result, list[Any]]:
    """Run one load level; scrape the engine before and after so its own view sits next to the client's."""
    from rooftop.errors import RooftopError
    from rooftop.serving.loadgen.runner import run
    from rooftop.serving.loadgen.summary import summarize
    from rooftop.serving.sources import fetch
    from rooftop.serving.watch import observe, window

    before = None
    if scrape:
        try:
            before = observe(fetch(target.base_url), target.base_url)
        except RooftopError as exc:
            before, note = None, str(exc)
    result = run(target, requests, offsets, timeout_s, max_concurrency, on_done)
    summary = summarize(result.records, result.duration_s, slo)
    engine: dict[str, Any] | None = None
    res = Result(workload={"target": target.url}, points=(), extra={})
    if before is not None:
        try:
            after = observe(fetch(target.base_url), target.base_url)
            w_summary, res = analyse_window(window(before, after), live)
            engine = snapshot_summary(after.scalars, w_summary)
        except RooftopError as exc:
            engine = {"error": str(exc)}
    elif scrape:
        engine = {"error": note}
    summary["engine"] = engine
    res = replace(
        res,
        workload={**res.workload, "target": target.url, "requests": len(requests)},
        extra={**res.extra, "bench": {k: v for k, v in summary.items() if k != "engine"}},
    )
    return summary, res, list(result.records)
