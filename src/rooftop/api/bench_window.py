"""Assemble a profiled bench level: client metrics, counters and imported traces of one window.

The window record (``extra.profile`` of the window's Result) carries every clock reading, so a
reader can check that the three views cover the same interval: the profiler calls, the two
scrapes, each trace's first and last event on the wall clock, and the requests and tokens the
client and the engine counted between the scrapes. ``contained`` says whether the scrapes lie
between the profiler calls and every trace's events lie within them too.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace

from rooftop.api.bench import Level
from rooftop.api.live_model import LiveModel
from rooftop.core.artifact import Result, Run
from rooftop.core.points import Phase
from rooftop.core.slo import SLO
from rooftop.serving.loadgen.client import RequestRecord
from rooftop.serving.loadgen.runner import RunResult, Target


class ProfileOptions(msgspec.Struct, frozen=True):
    """Where the engine writes traces, when to profile (s from the load's start), how long to wait."""

    folder: Path
    window_s: tuple[float, float] | None = None  # None: the middle half of the schedule
    trace_timeout_s: float = 300.0


class Edges(msgspec.Struct):
    """What the controller saw: the two profiler calls and the two scrapes (wall and perf clocks)."""

    prefix: str
    start_call: Any = None
    stop_call: Any = None
    before: Any = None  # Observation at the first edge
    after: Any = None
    before_perf_s: float = float("nan")
    after_perf_s: float = float("nan")
    error: BaseException | None = None
    clock: tuple[float, float] = msgspec.field(default_factory=lambda: (time.time(), time.perf_counter()))

    def wall(self, perf_s: float) -> float:
        """A perf_counter reading on the wall clock."""
        return self.clock[0] + (perf_s - self.clock[1])


def in_window(records: tuple[RequestRecord, ...], origin_perf: float, edges: Edges) -> list[RequestRecord]:
    """The requests that finished between the two scrapes (as the engine's requests_finished counts them)."""
    lo, hi = edges.before_perf_s - origin_perf, edges.after_perf_s - origin_perf
    return [r for r in records if r.ok and lo <= r.end_s <= hi]


def window_summary(records: tuple[RequestRecord, ...], origin_perf: float, edges: Edges, slo: SLO) -> Any:
    """The client's metrics of the window, each counted when the engine's histogram observes it.

    E2E, TPOT, throughput and goodput: requests that finished in the window; TTFT: requests whose
    first token came in it; ITL: gaps whose later token came in it. Per second: over the window.
    """
    from msgspec.structs import replace

    from rooftop.serving.loadgen.summary import quantiles, summarize

    lo, hi = edges.before_perf_s - origin_perf, edges.after_perf_s - origin_perf
    base = summarize(in_window(records, origin_perf, edges), hi - lo, slo)
    ok = [r for r in records if r.ok]
    ttft = [r.ttft_s for r in ok if lo <= r.chunk_s[0] <= hi]
    itl = [b - a for r in ok for a, b in zip(r.chunk_s, r.chunk_s[1:]) if lo <= b <= hi]
    return replace(base, ttft_s=quantiles(ttft), itl_s=quantiles(itl))


def chunks_in_window(records: tuple[RequestRecord, ...], origin_perf: float, edges: Edges) -> int:
    """Token chunks the client received between the two scrapes (any request)."""
    lo, hi = edges.before_perf_s - origin_perf, edges.after_perf_s - origin_perf
    return sum(1 for r in records for c in r.chunk_s if lo <= c <= hi)


class Profiled(msgspec.Struct, frozen=True):
    """A profiled bench level: the whole level, the window's Result, the ranks' Results, the window record."""

    level: Level
    window: Result
    analytic: tuple[Result, ...]
    ranks: tuple[Result, ...]
    record: dict[str, Any]

    def artifact(self, live: LiveModel | None, target: Target) -> Run:
        """One rooftop.run/1 Run: window (client + live), analytic, then each rank's measured points."""
        from rooftop.api.window import live_run

        return live_run("bench", [self.window, *self.analytic, *self.ranks], live, {"target": target.url})


CLOCK_SLACK_S = 0.005  # two processes' clock reads on one host


def _ranks(files: list[Any], live: LiveModel | None) -> tuple[Result, ...]:
    from rooftop.api.ingest import trace_results

    return tuple(r for f in files for r in trace_results(f, live.roofs if live else None, host_ops=True)[0])


def _analytic(live: LiveModel | None, acc: dict[str, Any] | None) -> tuple[Result, ...]:
    """The analytic points at the window's mean shapes: prefill of the mean prompt, decode of the batch."""
    if live is None or not acc:
        return ()
    from rooftop.api.analysis import analyze_one

    prompt = max(1, round(acc["mean_prompt_tokens"]))
    context = max(1, round(acc["mean_prompt_tokens"] + max(0.0, acc["mean_output_tokens"] - 2.0) / 2.0))
    batch = max(1, round(acc["batch"]))
    prefill = replace(live.base, phase=Phase.PREFILL, batch=1, prompt=prompt, cached_prefix=0)
    decode = replace(live.base, phase=Phase.DECODE, batch=batch, context=context)
    return tuple(analyze_one(live.spec, w, live.roofs) for w in (prefill, decode))


def _trace_rows(ranks: tuple[Result, ...], on_s: float, off_s: float) -> list[Any]:
    rows = []
    slack = CLOCK_SLACK_S
    for r in ranks:
        clock = r.extra.get("clock") or {}
        first, last = clock.get("first_s"), clock.get("last_s")
        within = first is not None and last is not None and on_s - slack <= first and last <= off_s + slack
        rows.append(
            {
                "file": r.workload.get("file"),
                "rank": r.workload.get("rank"),
                "first_event_s": first,
                "last_event_s": last,
                "within_profiler_calls": within,
            }
        )
    return rows


def window_record(
    edges: Edges, result: RunResult, bounds: tuple[float, float], deltas: dict[str, float], ranks: Any
) -> dict[str, Any]:
    """Every clock reading and count of the window, and whether the three views line up."""
    lo, hi = edges.before_perf_s - result.origin_perf_s, edges.after_perf_s - result.origin_perf_s
    scrapes = (edges.wall(edges.before_perf_s), edges.wall(edges.after_perf_s))
    on, off = edges.start_call, edges.stop_call
    traces = _trace_rows(ranks, on.sent_s, off.returned_s)
    # the counters' window inside the profiling session: first scrape after the start's answer,
    # second before the stop is sent (the trace's events start and end where the engine ran)
    inside = on.returned_s <= scrapes[0] < scrapes[1] <= off.sent_s
    return {
        "prefix": edges.prefix,
        "window_s": list(bounds),
        "load_offsets_s": [lo, hi],
        "profiler_on_s": [on.sent_s, on.returned_s],
        "profiler_off_s": [off.sent_s, off.returned_s],
        "counters_s": list(scrapes),
        "client": {
            "finished_in_window": len(in_window(result.records, result.origin_perf_s, edges)),
            "token_chunks_in_window": chunks_in_window(result.records, result.origin_perf_s, edges),
        },
        "engine": {k: deltas.get(k) for k in ("requests_finished", "generation_tokens", "prompt_tokens")},
        "traces": traces,
        "counters_inside_profiler_calls": inside,
        "contained": inside and bool(traces) and all(t["within_profiler_calls"] for t in traces),
    }


def assemble(
    target: Target,
    result: RunResult,
    edges: Edges,
    slo: SLO,
    live: LiveModel | None,
    profile: ProfileOptions,
    rate: float,
    n_requests: int,
    bounds: tuple[float, float],
) -> Profiled:
    """The Profiled level: summaries, live window, analytic points, imported ranks and the window record."""
    from rooftop.api.window import analyse_window, snapshot_summary
    from rooftop.serving.loadgen.summary import summarize
    from rooftop.serving.profiler import wait_for_traces
    from rooftop.serving.watch import window

    whole = summarize(result.records, result.duration_s, slo)
    client = window_summary(result.records, result.origin_perf_s, edges, slo)
    w = window(edges.before, edges.after)
    w_summary, wres = analyse_window(w, live)
    engine = snapshot_summary(edges.after.scalars, w_summary)
    files = wait_for_traces(profile.folder, edges.prefix, profile.trace_timeout_s, started=edges.start_call)
    ranks = _ranks(files, live)
    record = window_record(edges, result, bounds, w.deltas, ranks)
    wres = replace(
        wres,
        workload={**wres.workload, "target": target.url, "requests": client.requests},
        extra={**wres.extra, "bench": client.to_dict(), "bench_level": whole.to_dict(), "profile": record},
    )
    level_workload = {"target": target.url, "requests": n_requests}
    level_res = Result(workload=level_workload, points=(), extra={"bench": whole.to_dict()})
    level = Level(rate, whole, engine, level_res, tuple(result.records))
    return Profiled(level, wres, _analytic(live, w_summary.get("accounting")), ranks, record)
