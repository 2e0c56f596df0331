"""Assemble a profiled bench level: client metrics, counters and imported traces of one window.

The window record (``extra.profile`` of the window's Result) carries every clock reading, so a
reader can check that the three views cover the same interval: the profiler calls, the two
scrapes, each trace's first and last event on the wall clock, and the requests and tokens the
client and the engine counted between the scrapes. ``contained`` says whether each trace lies
within the profiler calls and holds the counters' window.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rooftop.api.bench import Level
from rooftop.api.live_model import LiveModel
from rooftop.core.artifact import Result
from rooftop.core.points import Phase
from rooftop.core.slo import SLO
from rooftop.serving.loadgen.runner import RunResult, Target

if TYPE_CHECKING:
    from rooftop.api.bench_profile import Edges, Profiled, ProfileOptions

CLOCK_SLACK_S = 0.005  # two processes' clock reads on one host


def _ranks(files: list[Any], live: LiveModel | None) -> tuple[Result, ...]:
    from rooftop.api.ingest import trace_result

    return tuple(trace_result(f, live.roofs if live else None, host_ops=True)[0] for f in files)


def _analytic(live: LiveModel | None, acc: dict[str, Any] | None) -> tuple[Result, ...]:
    """The analytic points at the window's mean shapes: prefill of the mean prompt, decode of the batch."""
    if live is None or not acc:
        return ()
    from rooftop.api.analyze import analyze_one

    prompt = max(1, round(acc["mean_prompt_tokens"]))
    context = max(1, round(acc["mean_prompt_tokens"] + max(0.0, acc["mean_output_tokens"] - 2.0) / 2.0))
    batch = max(1, round(acc["batch"]))
    prefill = replace(live.base, phase=Phase.PREFILL, batch=1, prompt=prompt, cached_prefix=0)
    decode = replace(live.base, phase=Phase.DECODE, batch=batch, context=context)
    return tuple(analyze_one(live.spec, w, live.roofs) for w in (prefill, decode))


def _trace_rows(ranks: tuple[Result, ...], on_s: float, off_s: float, edges: tuple[float, float]) -> list[Any]:
    rows = []
    slack = CLOCK_SLACK_S
    for r in ranks:
        clock = r.extra.get("clock") or {}
        first, last = clock.get("first_s"), clock.get("last_s")
        within = holds = False
        if first is not None and last is not None:
            within = on_s - slack <= first and last <= off_s + slack
            holds = first <= edges[0] + slack and edges[1] - slack <= last
        rows.append(
            {
                "file": r.workload.get("file"),
                "rank": r.workload.get("rank"),
                "first_event_s": first,
                "last_event_s": last,
                "within_profiler_calls": within,
                "holds_counter_window": holds,
            }
        )
    return rows


def window_record(
    edges: Edges, result: RunResult, bounds: tuple[float, float], deltas: dict[str, float], ranks: Any
) -> dict[str, Any]:
    """Every clock reading and count of the window, and whether the three views line up."""
    from rooftop.api.bench_profile import chunks_in_window, in_window

    lo, hi = edges.before_perf_s - result.origin_perf_s, edges.after_perf_s - result.origin_perf_s
    scrapes = (edges.wall(edges.before_perf_s), edges.wall(edges.after_perf_s))
    on, off = edges.start_call, edges.stop_call
    traces = _trace_rows(ranks, on.sent_s, off.returned_s, scrapes)
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
        "contained": bool(traces) and all(t["within_profiler_calls"] and t["holds_counter_window"] for t in traces),
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
    from rooftop.api.bench_profile import Profiled, window_summary
    from rooftop.api.window import analyse_window, snapshot_summary
    from rooftop.serving.loadgen.summary import summarize
    from rooftop.serving.profiler import wait_for_traces
    from rooftop.serving.watch import window

    whole = summarize(result.records, result.duration_s, slo)
    client = window_summary(result.records, result.origin_perf_s, edges, slo)
    w = window(edges.before, edges.after)
    w_summary, wres = analyse_window(w, live)
    engine = snapshot_summary(edges.after.scalars, w_summary)
    files = wait_for_traces(profile.folder, edges.prefix, profile.trace_timeout_s)
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
