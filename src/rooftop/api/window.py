"""One metrics window → the watch summary (JSON shaping) and a Result with live points and findings."""

from __future__ import annotations

import math
from typing import Any

from rooftop.api.live import Accounting, account, finite
from rooftop.api.live_model import LiveModel
from rooftop.api.prompt_mix import PromptMix
from rooftop.core.artifact import Result, Run
from rooftop.core.enums import Bound
from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.core.roofs import Roofs
from rooftop.core.totals import Totals
from rooftop.diagnose.engine import Evidence, diagnose
from rooftop.diagnose.evidence.live import LiveEvidence, LiveUtilisation
from rooftop.serving.watch import Observation, Window

LATENCIES = ("ttft_s", "itl_s", "tpot_s", "e2e_s", "queue_s", "prefill_s", "decode_s", "inference_s")
NO_ROOFS = Roofs(name="unknown", vendor="", capacity_bytes=float("nan"), compute=(), memory=())


def latency(w: Window) -> dict[str, dict[str, float | None]]:
    """Windowed quantiles of the engine's latency histograms (p50/p90/p99 and mean).

    Where the buckets bound what a quantile can say, the edges come along: ``open_above_s`` (the
    last finite edge) and ``open_share`` (observations in the +Inf bucket: a quantile above
    1 − open_share is only a lower bound, '> 30 s'), and ``first_edge_s`` with ``first_share``
    (a quantile at or below first_share lies inside the first bucket: only '< edge' is known).
    """
    out = {}
    for key in LATENCIES:
        h = w.histograms.get(key)
        if h is not None and h.count > 0:
            out[key] = {k: finite(v) for k, v in {**h.quantiles(), "mean": h.mean}.items()}
            out[key].update(_bucket_bounds(h.buckets))
    return out


def _bucket_bounds(buckets: tuple[tuple[float, float], ...]) -> dict[str, float | None]:
    finite_buckets = [(e, c) for e, c in buckets if math.isfinite(e)]
    total = buckets[-1][1] if buckets else 0.0
    if not finite_buckets or total <= 0:
        return {}
    out: dict[str, float | None] = {"first_edge_s": finite_buckets[0][0], "first_share": finite_buckets[0][1] / total}
    top_edge, top_count = finite_buckets[-1]
    if total > top_count:
        out.update({"open_above_s": top_edge, "open_share": (total - top_count) / total})
    return out


def points(w: Window, acc: Accounting, live: LiveModel) -> tuple[RooflinePoint, ...]:
    """One live RooflinePoint per phase with work in the window: one engine's share of it.

    Data-parallel engines each run their part on their own GPUs, under the roofs the point is drawn against.
    """
    out = []
    n = max(1, w.replicas)
    for phase in (Phase.PREFILL, Phase.DECODE):
        tokens = getattr(acc.tokens, phase.value)
        if tokens <= 0:
            continue
        out.append(
            RooflinePoint(
                label=f"live {phase.value}",
                op="serving-window",
                phase=phase,
                flops=getattr(acc.flops, phase.value) / n,
                bytes=getattr(acc.bytes, phase.value) / n,
                time_s=w.interval_s,
                dtype=live.base.compute,
                source=Source.LIVE,
                provenance={
                    "source": w.source,
                    "engine": w.engine,
                    "start_s": w.start_s,
                    "end_s": w.end_s,
                    "tokens": tokens,
                    "replicas": n,
                },
            )
        )
    return tuple(out)


def totals(w: Window, acc: Accounting, live: LiveModel) -> Totals:
    """The window as one Totals record (phase 'live'; time = window wall time; one engine's share of the work)."""
    n = max(1, w.replicas)
    return Totals(
        phase="live",
        time_s=w.interval_s,
        tokens=(acc.tokens.prefill + acc.tokens.generated) / n,
        flops=acc.flops.total / n,
        model_flops=acc.flops.total / n,
        bytes=acc.bytes.total / n,
        weight_bytes=float("nan"),
        kv_read_bytes=float("nan"),
        kv_write_bytes=float("nan"),
        activation_bytes=float("nan"),
        link_bytes=0.0,
        mfu=acc.mfu.total or 0.0,
        hfu=float("nan"),
        mbu=acc.mbu.total or 0.0,
        bound=Bound.NONE,
        peak_flop_per_s=live.roofs.peak(live.base.compute),
        bandwidth_bytes_per_s=live.roofs.bandwidth("hbm"),
    )


def _summary(w: Window, gauges: dict[str, float], lat: dict[str, Any]) -> dict[str, Any]:
    return {
        "source": w.source,
        "engine": w.engine,
        "replicas": w.replicas,
        "window_s": w.interval_s,
        "rates": {
            "prompt_tokens_per_s": finite(w.per_s("prompt_tokens")),
            "generation_tokens_per_s": finite(w.per_s("generation_tokens")),
            "requests_per_s": finite(w.per_s("requests_finished")),
        },
        "gauges": gauges,
        "latency": lat,
        "reset": w.reset,
        "mfu": None,
        "mbu": None,
    }


def analyse_window(
    w: Window, live: LiveModel | None, include_cached: bool = True, mix: PromptMix | None = None
) -> tuple[dict[str, Any], Result]:
    """A window → (the watch summary dict, a Result with live points, totals and findings)."""
    gauges = dict(w.gauges)
    lat = latency(w)
    summary = _summary(w, gauges, lat)
    pts: tuple[RooflinePoint, ...] = ()
    tot = None
    utilisation = None
    if live is not None:
        acc = account(w, live, include_cached, mix=mix)
        plain = acc.to_dict()
        summary.update(mfu=plain["mfu"], mbu=plain["mbu"], accounting=plain)
        pts, tot = points(w, acc, live), totals(w, acc, live)
        utilisation = LiveUtilisation(plain["mfu"], plain["mbu"], acc.batch, acc.mean_prompt_tokens)
    roofs = live.roofs if live else NO_ROOFS
    tp = live.base.tp if live else 1
    live_ev = LiveEvidence(gauges, w.deltas, lat, w.interval_s, utilisation)
    findings = diagnose(Evidence(pts, roofs, tot, {"engine": w.engine, "tp": tp}, live=live_ev))
    summary["findings"] = [f.to_dict() for f in findings]
    result = Result(
        workload={"engine": w.engine, "source": w.source, "window_s": w.interval_s},
        points=pts,
        totals=tot,
        findings=tuple(findings),
        extra={"live": {k: v for k, v in summary.items() if k != "findings"}},
    )
    return summary, result


def live_run(command: str, results: list[Result], live: LiveModel | None, identity: dict[str, Any]) -> Run:
    """Wrap live results in a rooftop.run/1 Run."""
    return Run(
        command=command,
        roofs=live.roofs if live else NO_ROOFS,
        results=tuple(results),
        identity={"source": "live", **({"model": live.spec.describe()} if live else {}), **identity},
    )


def snapshot_summary(obs_scalars: dict[str, float], summary: dict[str, Any]) -> dict[str, Any]:
    """The `watch --json` object: engine, samples, rates, mfu, mbu, findings (+ latency, cross_check...)."""
    acc = summary.get("accounting") or {}
    timed = summary["window_s"] > 0
    return {
        "engine": summary["engine"],
        "source": summary["source"],
        "replicas": summary["replicas"],
        "samples": obs_scalars,
        "rates": summary["rates"] if timed else None,
        "mfu": summary["mfu"] if timed else None,
        "mbu": summary["mbu"] if timed else None,
        "findings": summary["findings"],
        "window_s": summary["window_s"],
        "latency": summary["latency"],
        "cross_check": acc.get("cross_check"),
        "prompt_mix": acc.get("prompt_mix"),
        "prefill_flops_bounds": acc.get("prefill_flops_bounds"),
        "reset": summary["reset"],
    }


def since_start(obs: Observation) -> Window:
    """A single observation as a window from the engine's start (interval unknown: rates are not given)."""
    from rooftop.serving.engines import engine_map

    emap = engine_map(obs.engine)
    deltas = {k: v for k, v in obs.scalars.items() if emap.kind(k) == "counter"}
    gauges = {k: v for k, v in obs.scalars.items() if emap.kind(k) != "counter"}
    return Window(
        obs.source, obs.engine, obs.time_s, obs.time_s, deltas, gauges, dict(obs.histograms), False, obs.replicas
    )
