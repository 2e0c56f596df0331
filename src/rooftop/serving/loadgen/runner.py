"""Drive requests open-loop: each leaves at its scheduled offset whether or not others finished.

A request that cannot finish within ``timeout_s`` is recorded as a timeout (never dropped).
``max_concurrency`` (optional) caps in-flight requests, which turns the open loop into a capped
one, as ``vllm bench serve --max-concurrency`` does; the lag it causes shows in schedule_lag_s.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

import msgspec
import numpy as np
from numpy.typing import NDArray

from rooftop.core.collect import fewer_collections
from rooftop.errors import WorkloadError
from rooftop.serving.loadgen.arrivals import MAX_SCHEDULE_S, check_schedule
from rooftop.serving.loadgen.client import RequestRecord, body, send
from rooftop.serving.loadgen.prompts import Request


class Target(msgspec.Struct, frozen=True):
    """Where to send: base URL (http://host:port), served model name, API flavour."""

    base_url: str
    model: str
    chat: bool = False
    ignore_eos: bool = True

    @property
    def url(self) -> str:
        """The completions endpoint."""
        path = "/v1/chat/completions" if self.chat else "/v1/completions"
        return self.base_url.rstrip("/").removesuffix("/v1") + path


class RunResult(msgspec.Struct, frozen=True):
    """Per-request records and the run's wall duration (first send → last end)."""

    records: tuple[RequestRecord, ...]
    duration_s: float
    started_unix_s: float
    origin_perf_s: float = 0.0  # time.perf_counter() of offset 0 (the records' clock)


async def _run(
    target: Target,
    requests: Sequence[Request],
    offsets: NDArray[np.float64],
    timeout_s: float,
    max_concurrency: int | None,
    on_done: Callable[[RequestRecord], None] | None,
) -> RunResult:
    import aiohttp

    gate = asyncio.Semaphore(max_concurrency) if max_concurrency else None
    records = [RequestRecord(i, float(offsets[i])) for i in range(len(requests))]
    url = target.url
    started_unix = time.time()
    # One session and connection pool for the run (no per-request client); no connection cap, so
    # the open loop is never throttled by the pool; keep-alive connections are reused.
    connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300, keepalive_timeout=60)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None)) as session:
        t0 = time.perf_counter()

        async def one(i: int) -> None:
            payload = body(requests[i], target.model, target.chat, target.ignore_eos)
            try:
                if gate is None:
                    await send(session, url, payload, records[i], t0, timeout_s)
                else:
                    async with gate:
                        await send(session, url, payload, records[i], t0, timeout_s)
            except Exception as exc:  # one request's surprise must not lose the run's records
                records[i].error = f"{type(exc).__name__}: {exc}"[:200]
            if on_done:
                on_done(records[i])

        # One dispatcher sleeps until each scheduled time and starts that request's task, so only
        # in-flight requests exist as tasks (not one sleeping task per request of the run).
        tasks = []
        for i, rec in enumerate(records):
            delay = rec.scheduled_s - (time.perf_counter() - t0)
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(i)))
        await asyncio.gather(*tasks)
    ends = [r.end_s if r.end_s == r.end_s else r.sent_s for r in records]
    duration = max(ends) - min(r.sent_s for r in records) if records else 0.0
    return RunResult(tuple(records), float(duration), started_unix, t0)


def run(
    target: Target,
    requests: Sequence[Request],
    offsets: NDArray[np.float64],
    timeout_s: float = 300.0,
    max_concurrency: int | None = None,
    on_done: Callable[[RequestRecord], None] | None = None,
) -> RunResult:
    """Send ``requests`` at ``offsets`` (s) to ``target``; block until every one ended or timed out."""
    if not 0 < timeout_s <= MAX_SCHEDULE_S:  # NaN, 0 and -1 would disable the timeout
        raise WorkloadError(f"timeout {timeout_s!r}: expected seconds in (0, {MAX_SCHEDULE_S:g}]")
    check_schedule(np.asarray(offsets, dtype=np.float64), "schedule")
    with fewer_collections():  # a collection's pause is client time added to every stream in flight
        return asyncio.run(_run(target, requests, offsets, timeout_s, max_concurrency, on_done))
