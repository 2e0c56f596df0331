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

import math
import threading
import time
from pathlib import Path
from typing import Any

from rooftop.api.bench import LoadOptions, Offsets, OnDone
from rooftop.api.bench_window import Edges, Profiled, ProfileOptions, assemble
from rooftop.api.live_model import LiveModel
from rooftop.core.slo import SLO
from rooftop.errors import RooftopError, TelemetryError, WorkloadError
from rooftop.serving.loadgen.prompts import Request
from rooftop.serving.loadgen.runner import Target


def window_bounds(offsets: Offsets, chosen: tuple[float, float] | None) -> tuple[float, float]:
    """The profiling window in seconds from the load's start: ``chosen``, or the schedule's middle half."""
    if chosen is not None:
        start, end = chosen
        if not (0 <= start < end and math.isfinite(end)):
            raise WorkloadError(f"--profile-window {start:g}:{end:g}: expected 0 ≤ START < END seconds, finite")
        return start, end
    span = float(offsets[-1]) if len(offsets) else 0.0
    if span <= 0:
        raise WorkloadError("--profile needs a schedule that lasts (a finite rate); or pass --profile-window")
    return span / 4, 3 * span / 4


def _observe(url: str) -> tuple[Any, float]:
    """The engine's counters and when they were read: the middle of the scrape.

    The engine renders its page somewhere between the request and the answer; stamping the scrape
    after it was parsed would put the window's edges late by the whole exchange, which a loaded
    engine (the first scrape follows the profiler's start) stretches to tens of milliseconds.
    """
    from rooftop.serving.sources import fetch
    from rooftop.serving.watch import observe

    sent = time.perf_counter()
    snap = fetch(url)
    read = (sent + time.perf_counter()) / 2
    return observe(snap, url), read


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
    if not profiler.is_vllm(base, 5.0):
        return
    try:
        code = httpx.get(f"{base}/start_profile", timeout=5.0).status_code  # POST-only route: 405 when mounted
    except httpx.HTTPError:
        return
    if code == 404:
        raise TelemetryError(f"{base}/start_profile: HTTP 404: {profiler.NOT_PROFILING}")


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
