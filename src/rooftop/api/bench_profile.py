"""`bench --profile`: drive one load level and record the engine's torch-profiler trace over a window of it.

One interval, three views. While the load runs, a controller thread waits for the window's start,
asks the engine to start profiling, scrapes /metrics (the counters' first edge), waits for the
window's end, scrapes /metrics again (second edge) and asks the engine to stop. So

    profiler on  ≤  first scrape  <  second scrape  ≤  profiler off

and the counters' window lies inside the traced one. The client's metrics of the window are those
of the requests sent and finished between the two scrapes (all clocks are this machine's:
perf_counter for requests, time.time for calls; the trace's own clock is ``baseTimeNanoseconds``
+ event µs, the same wall clock on one host). The worker traces are then awaited, imported per
rank, and one Run holds: the window (client metrics, live MFU/MBU points, findings), the analytic
points at the window's mean shapes, and each rank's measured points and timeline.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rooftop.api.bench import Level, LoadOptions, Offsets, OnDone
from rooftop.api.live_model import LiveModel
from rooftop.core.artifact import Result, Run
from rooftop.core.slo import SLO
from rooftop.errors import RooftopError, TelemetryError, WorkloadError
from rooftop.serving.loadgen.client import RequestRecord
from rooftop.serving.loadgen.prompts import Request
from rooftop.serving.loadgen.runner import Target


@dataclass(frozen=True)
class ProfileOptions:
    """Where the engine writes traces, when to profile (s from the load's start), how long to wait."""

    folder: Path
    window_s: tuple[float, float] | None = None  # None: the middle half of the schedule
    trace_timeout_s: float = 300.0


@dataclass
class Edges:
    """What the controller saw: the two profiler calls and the two scrapes (wall and perf clocks)."""

    prefix: str
    start_call: Any = None
    stop_call: Any = None
    before: Any = None  # Observation at the first edge
    after: Any = None
    before_perf_s: float = float("nan")
    after_perf_s: float = float("nan")
    error: BaseException | None = None
    clock: tuple[float, float] = field(default_factory=lambda: (time.time(), time.perf_counter()))

    def wall(self, perf_s: float) -> float:
        """A perf_counter reading on the wall clock."""
        return self.clock[0] + (perf_s - self.clock[1])


def window_bounds(offsets: Offsets, chosen: tuple[float, float] | None) -> tuple[float, float]:
    """The profiling window in seconds from the load's start: ``chosen``, or the schedule's middle half."""
    if chosen is not None:
        start, end = chosen
        if not 0 <= start < end:
            raise WorkloadError(f"--profile-window {start:g}:{end:g}: expected 0 ≤ START < END seconds")
        return start, end
    span = float(offsets[-1]) if len(offsets) else 0.0
    if span <= 0:
        raise WorkloadError("--profile needs a schedule that lasts (a finite rate); or pass --profile-window")
    return span / 4, 3 * span / 4


def _observe(url: str) -> tuple[Any, float]:
    from rooftop.serving.sources import fetch
    from rooftop.serving.watch import observe

    obs = observe(fetch(url), url)
    return obs, time.perf_counter()


def _control(
    target: Target, edges: Edges, origin_perf: float, bounds: tuple[float, float], opts: ProfileOptions
) -> None:
    from rooftop.serving import profiler

    try:
        time.sleep(max(0.0, origin_perf + bounds[0] - time.perf_counter()))
        edges.start_call = profiler.start(target.base_url, edges.prefix, opts.folder)
        edges.before, edges.before_perf_s = _observe(target.base_url)
        time.sleep(max(0.0, origin_perf + bounds[1] - time.perf_counter()))
        edges.after, edges.after_perf_s = _observe(target.base_url)
        edges.stop_call = profiler.stop(target.base_url, opts.trace_timeout_s)
    except (RooftopError, OSError) as exc:
        edges.error = exc


def preflight(target: Target, folder: Path) -> None:
    """Fail before any load when the engine cannot profile (vLLM: its route is absent) or the folder is missing."""
    import httpx

    from rooftop.serving import profiler

    if not folder.is_dir():
        raise TelemetryError(f"--profile-dir {folder}: no such folder (the engine's torch_profiler_dir)")
    base = target.base_url.rstrip("/").removesuffix("/v1")
    if not profiler._is_vllm(base, 5.0):
        return
    try:
        code = httpx.get(f"{base}/start_profile", timeout=5.0).status_code  # POST-only route: 405 when mounted
    except httpx.HTTPError:
        return
    if code == 404:
        raise TelemetryError(f"{base}/start_profile: HTTP 404: {profiler.NOT_PROFILING}")


def in_window(records: tuple[RequestRecord, ...], origin_perf: float, edges: Edges) -> list[RequestRecord]:
    """The requests that finished between the two scrapes (as the engine's requests_finished counts them)."""
    lo, hi = edges.before_perf_s - origin_perf, edges.after_perf_s - origin_perf
    return [r for r in records if r.ok and lo <= r.end_s <= hi]


def window_summary(records: tuple[RequestRecord, ...], origin_perf: float, edges: Edges, slo: SLO) -> Any:
    """The client's metrics of the window, each counted when the engine's histogram observes it.

    E2E, TPOT, throughput and goodput: requests that finished in the window; TTFT: requests whose
    first token came in it; ITL: gaps whose later token came in it. Per second: over the window.
    """
    from dataclasses import replace

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


@dataclass(frozen=True)
class Profiled:
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


def bench_profiled(
    target: Target,
    requests: list[Request],
    offsets: Offsets,
    slo: SLO,
    live: LiveModel | None,
    profile: ProfileOptions,
    options: LoadOptions | None = None,
    on_done: OnDone | None = None,
    rate: float = float("nan"),
) -> Profiled:
    """Run one level with the engine profiled over a window of it; import the traces; one result set."""
    from rooftop.api.bench_window import assemble
    from rooftop.serving.loadgen.runner import run

    options = options or LoadOptions()
    bounds = window_bounds(offsets, profile.window_s)
    preflight(target, profile.folder)
    edges = Edges(prefix=f"rooftop-{time.time_ns()}")
    origin = time.perf_counter()
    ctl = threading.Thread(target=_control, args=(target, edges, origin, bounds, profile), daemon=True)
    ctl.start()
    result = run(target, requests, offsets, options.timeout_s, options.max_concurrency, on_done)
    ctl.join(profile.trace_timeout_s)
    if ctl.is_alive():
        raise TelemetryError(f"{target.base_url}/stop_profile: no answer within {profile.trace_timeout_s:g} s")
    if edges.error is not None:
        raise edges.error
    ends = [r.end_s for r in result.records if r.end_s == r.end_s]
    if edges.after is None or not ends or edges.after_perf_s - result.origin_perf_s > max(ends):
        raise WorkloadError(
            f"--profile-window {bounds[0]:g}:{bounds[1]:g} s: the load ended before the window did "
            f"({max(ends, default=0.0):.1f} s of load); choose an earlier window or more requests"
        )
    return assemble(target, result, edges, slo, live, profile, rate, len(requests), bounds)
