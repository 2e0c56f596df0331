"""`bench` orchestration: open-loop load levels, one after another, with the engine's view beside each.

Per level the engine's /metrics is scraped before and after the load, so its own latency
histograms and live MFU/MBU (api/window.py) sit next to the client's numbers. A level's
schedule is a rate (Poisson/gamma/constant arrivals) or a trace of send times (rate NaN).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import msgspec
import numpy as np
from msgspec.structs import replace
from numpy.typing import NDArray

from rooftop.api.live_model import LiveModel
from rooftop.api.window import analyse_window, live_run, snapshot_summary
from rooftop.core.artifact import Result, Run
from rooftop.core.slo import SLO
from rooftop.errors import RooftopError, TelemetryError
from rooftop.serving.loadgen.client import RequestRecord
from rooftop.serving.loadgen.prompts import Request
from rooftop.serving.loadgen.runner import Target
from rooftop.serving.loadgen.summary import BenchSummary

Offsets = NDArray[np.float64]
OnDone = Callable[[RequestRecord], None]
# progress(level, number of requests) → a context yielding the per-request callback
Progress = Callable[[float, int], AbstractContextManager[OnDone]]


class LoadOptions(msgspec.Struct, frozen=True):
    """How requests are sent: per-request timeout, concurrency cap, whether /metrics is scraped."""

    timeout_s: float = 300.0
    max_concurrency: int | None = None
    scrape: bool = True
    model_label: str | None = None  # Triton: the model whose request counters count (default: the ensemble)


class Level(msgspec.Struct, frozen=True):
    """One load level: the client's summary, the engine's own view, the level's Result and its records."""

    rate: float  # req/s offered; NaN when the send times come from a trace
    summary: BenchSummary
    engine: dict[str, Any] | None  # watch's JSON object; {"error": …} when unreadable; None unscraped
    result: Result
    records: tuple[RequestRecord, ...]

    def to_dict(self) -> dict[str, Any]:
        """The client's summary with the engine's view under ``engine`` (the `bench --json` object)."""
        return {**self.summary.to_dict(), "engine": self.engine}


class BenchRun(msgspec.Struct, frozen=True):
    """Every level of a bench run, in order, with the labels (arrival, burstiness) each JSON object carries."""

    levels: tuple[Level, ...]
    labels: dict[str, Any] = msgspec.field(default_factory=dict)

    def runs(self) -> list[dict[str, Any]]:
        """One JSON object per level: rate (None for a trace), labels, then the summary."""
        return [{"rate": None if math.isnan(lv.rate) else lv.rate, **self.labels, **lv.to_dict()} for lv in self.levels]

    def document(self) -> dict[str, Any]:
        """The `bench --json` object: the one level, or {"runs", "sweep"} (knee and best goodput)."""
        from rooftop.serving.loadgen.sweep import analyse

        runs = self.runs()
        if len(runs) == 1:
            return _rate_words(runs[0], ("rate",))
        sweep = analyse([(s["rate"], s) for s in runs])
        return {
            "runs": [_rate_words(r, ("rate",)) for r in runs],
            "sweep": _rate_words(sweep, ("best_goodput_rate", "knee_rate")),
        }

    def records(self) -> list[tuple[float, RequestRecord]]:
        """(offered rate, record) of every request of every level."""
        return [(lv.rate, r) for lv in self.levels for r in lv.records]

    def artifact(self, live: LiveModel | None, target: Target) -> Run:
        """The rooftop.run/1 Run: one Result per level."""
        return live_run("bench", [lv.result for lv in self.levels], live, {"target": target.url})


def _rate_words(obj: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """Rates of 'inf' (all at once) as the word "inf": strict JSON has no infinity."""
    out = dict(obj)
    for k in keys:
        v = out.get(k)
        if isinstance(v, float) and math.isinf(v):
            out[k] = "inf" if v > 0 else "-inf"
    return out


def served_model_name(base_url: str, timeout_s: float = 10.0) -> str:
    """The first model id that GET /v1/models lists."""
    import httpx

    url = base_url.rstrip("/").removesuffix("/v1") + "/v1/models"
    try:
        data = httpx.get(url, timeout=timeout_s).json()
        return str(data["data"][0]["id"])
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError):
        raise TelemetryError(f"{url}: cannot list served models") from None


def _engine_before(target: Target, scrape: bool, model_label: str | None = None) -> tuple[Any, str]:
    from rooftop.serving.sources import fetch
    from rooftop.serving.watch import observe

    if not scrape:
        return None, ""
    try:
        return observe(fetch(target.base_url), target.base_url, None, model_label), ""
    except RooftopError as exc:
        return None, str(exc)


def _engine_after(
    target: Target, before: Any, live: LiveModel | None, records: Sequence[Any] = (), model_label: str | None = None
) -> tuple[dict[str, Any], Result | None]:
    from rooftop.api.prompt_mix import PromptMix
    from rooftop.serving.sources import fetch
    from rooftop.serving.watch import observe, window

    try:
        after = observe(fetch(target.base_url), target.base_url, None, model_label)
        w_summary, res = analyse_window(window(before, after), live, mix=PromptMix.from_records(records))
        extra = {"renamed": list(after.deprecated), "request_models": list(after.models)}
        return {**snapshot_summary(after.scalars, w_summary), **extra}, res
    except RooftopError as exc:
        return {"error": str(exc)}, None


def run_span_s(measured_s: float, n_requests: int, rate: float) -> float:
    """The run's duration for throughput and goodput: at least the schedule's n / rate.

    n arrivals at rate r occupy n / r seconds of the schedule; the first send to the last end
    alone spans only (n − 1) / r plus the last request's latency, which would let goodput exceed
    the offered rate (4.11 req/s for 4.0 offered) when requests are short.
    """
    if math.isfinite(rate) and rate > 0:
        return max(measured_s, n_requests / rate)
    return measured_s


def bench_one(
    target: Target,
    requests: Sequence[Request],
    offsets: Offsets,
    slo: SLO,
    live: LiveModel | None,
    options: LoadOptions = LoadOptions(),
    on_done: OnDone | None = None,
    rate: float = math.nan,
) -> Level:
    """Run one load level; scrape the engine before and after so its own view sits next to the client's."""
    from rooftop.serving.loadgen.runner import run
    from rooftop.serving.loadgen.summary import summarize

    before, note = _engine_before(target, options.scrape, options.model_label)
    result = run(target, list(requests), offsets, options.timeout_s, options.max_concurrency, on_done)
    summary = summarize(result.records, run_span_s(result.duration_s, len(requests), rate), slo)
    engine: dict[str, Any] | None = {"error": note} if note else None
    res = Result(workload={"target": target.url}, points=(), extra={})
    if before is not None:
        engine, window_res = _engine_after(target, before, live, result.records, options.model_label)
        res = window_res or res
    res = replace(
        res,
        workload={**res.workload, "target": target.url, "requests": len(requests)},
        extra={**res.extra, "bench": summary.to_dict()},
    )
    return Level(rate, summary, engine, res, tuple(result.records))


def run_levels(
    target: Target,
    requests: Sequence[Request],
    schedule: Callable[[float], Offsets],
    levels: Sequence[float],
    slo: SLO,
    live: LiveModel | None,
    options: LoadOptions = LoadOptions(),
    labels: dict[str, Any] | None = None,
    progress: Progress | None = None,
) -> BenchRun:
    """Run one open-loop level after another: ``schedule(level)`` gives each level's send offsets."""
    done: list[Level] = []
    for level in levels:
        offsets = schedule(level)
        ctx = progress(level, len(offsets)) if progress else nullcontext(None)
        with ctx as on_done:
            done.append(bench_one(target, requests[: len(offsets)], offsets, slo, live, options, on_done, level))
    return BenchRun(tuple(done), dict(labels or {}))
