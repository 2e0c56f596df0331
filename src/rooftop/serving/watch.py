"""Continuous watch: poll sources, keep a durable JSONL log, report gaps and engine restarts.

Each poll of a source yields an Observation (canonical scalars and histograms of its engine) or
an error. Between two good observations of one source a Window holds the counter increases
(resets detected: an engine restart never yields a negative rate), the gauges and the windowed
histograms. Every observation and every event (error, gap, reset) is appended to the log and
flushed to disk before the loop goes on; a restarted watcher reads the log back and continues
from the last observation of each source, so nothing it had is lost.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Literal

import msgspec

from rooftop.core.collect import fewer_collections
from rooftop.core.jsonenc import dumps
from rooftop.errors import RooftopError, TelemetryError
from rooftop.serving.engines import EngineMap, detect, engine_map, mismatch
from rooftop.serving.exposition import Snapshot
from rooftop.serving.histograms import Histogram
from rooftop.serving.rates import rate


class Observation(msgspec.Struct, frozen=True):
    """One good poll of one source, reduced to canonical metrics."""

    source: str
    time_s: float
    engine: str
    scalars: dict[str, float]
    histograms: dict[str, Histogram]
    deprecated: tuple[str, ...] = ()  # 'old → new (deprecated in X)' for each renamed metric still read
    models: tuple[str, ...] = ()  # the models whose request counters were read (per-model engines)
    replicas: int = 1  # data-parallel engines behind the source (vLLM's engine="N" labels)

    def to_json(self) -> dict[str, Any]:
        """The log line."""
        return {
            "t": self.time_s,
            "source": self.source,
            "engine": self.engine,
            "replicas": self.replicas,
            "renamed": list(self.deprecated),
            "request_models": list(self.models),
            "scalars": self.scalars,
            "hist": {
                k: {"sum": h.sum, "count": h.count, "buckets": [[_edge(e), c] for e, c in zip(h.edges, h.counts)]}
                for k, h in self.histograms.items()
            },
        }

    @classmethod
    def from_json(cls, d: Any) -> Observation:
        """Inverse of to_json; a record of another shape raises msgspec.ValidationError or ValueError."""
        rec = msgspec.convert(d, _Logged)
        hist = {k: Histogram.of(((float(e), c) for e, c in v.buckets), v.sum, v.count) for k, v in rec.hist.items()}
        scalars = {k: v for k, v in rec.scalars.items() if v is not None}  # NaN was logged as null
        return cls(
            rec.source, rec.t, rec.engine, scalars, hist, tuple(rec.renamed), tuple(rec.request_models), rec.replicas
        )


class _LoggedHist(msgspec.Struct):
    sum: float
    count: float
    buckets: list[tuple[float | Literal["+Inf"], float]]


class _Logged(msgspec.Struct):
    """One observation line of the JSONL log, as to_json writes it."""

    t: float
    source: str
    engine: str
    scalars: dict[str, float | None]
    hist: dict[str, _LoggedHist] = {}
    renamed: list[str] = []
    request_models: list[str] = []
    replicas: int = 1  # absent in logs written before data-parallel engines were told apart


def _edge(edge: float) -> float | str:
    return edge if math.isfinite(edge) else "+Inf"  # JSON has no infinity


def observe(snap: Snapshot, source: str, engine: str | None = None, model_label: str | None = None) -> Observation:
    """Reduce a snapshot to canonical metrics with ``engine``'s map (detected when None).

    ``model_label`` picks the model whose request counters count (Triton; default: the client-facing ones).
    A given ``engine`` of which the snapshot has no series at all is a TelemetryError naming the
    source, the engine and the engine the source looks like (a table of dashes would pass for data).
    """
    emap: EngineMap = engine_map(engine) if engine else detect(snap)
    reading = emap.reading(snap, model_label)  # kept per page layout: a repeated page costs a few sums
    values = snap.values
    scalars, histograms = reading.scalar_values(values), reading.histogram_values(values)
    if engine and not scalars and not histograms and (why := mismatch(snap, emap)):
        raise TelemetryError(why)
    return Observation(
        source, snap.time_s, emap.engine, scalars, histograms, reading.deprecated, reading.models, reading.replicas
    )


class Window(msgspec.Struct, frozen=True):
    """What happened at one source between two observations."""

    source: str
    engine: str
    start_s: float
    end_s: float
    deltas: dict[str, float]  # counter increases (reset-aware)
    gauges: dict[str, float]
    histograms: dict[str, Histogram]  # observations made inside the window
    reset: bool
    replicas: int = 1  # data-parallel engines sharing the window's counters: MFU/MBU are per engine

    @property
    def interval_s(self) -> float:
        """Window length in seconds."""
        return self.end_s - self.start_s

    def per_s(self, key: str) -> float:
        """A counter's rate over the window (NaN when absent)."""
        if key not in self.deltas or self.interval_s <= 0:
            return float("nan")
        return self.deltas[key] / self.interval_s


def window(before: Observation, after: Observation) -> Window:
    """The Window between two observations of one source."""
    emap = engine_map(after.engine)
    deltas, gauges, reset = {}, {}, False
    for key, value in after.scalars.items():
        if emap.kind(key) == "counter":
            if key in before.scalars:
                r = rate(before.scalars[key], value, after.time_s - before.time_s)
                deltas[key], reset = r.delta, reset or r.reset
        else:
            gauges[key] = value
    hists = {k: h.minus(before.histograms[k]) if k in before.histograms else h for k, h in after.histograms.items()}
    return Window(after.source, after.engine, before.time_s, after.time_s, deltas, gauges, hists, reset, after.replicas)


class JsonlLog:
    """Append-only JSONL; each line flushed and fsync'd before the call returns."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def append(self, record: dict[str, Any]) -> None:
        """Write one record durably."""
        line = dumps(record)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def read(self) -> list[dict[str, Any]]:
        """Every well-formed record (a line torn by a crash is skipped)."""
        if not self.path.exists():
            return []
        from rooftop.core.safejson import loads_json

        out = []
        with self.path.open("rb") as fh:
            for line in fh:
                try:  # bounded: a line nested 3,000 deep or holding a huge string is skipped, not a crash
                    out.append(loads_json(line, str(self.path), TelemetryError))
                except TelemetryError:
                    continue
        return out


Fetcher = Callable[[str], Snapshot]
# every source's (snapshot or error, seconds) at once, each reading only its families (None: all)
ManyFetcher = Callable[[list[str], list[frozenset[str] | None]], list[tuple[Snapshot | RooftopError, float]]]


@cache
def families(engine: str) -> frozenset[str] | None:
    """The metric families ``engine``'s map reads (a counter's family without ``_total``), renamed ones included.

    A counter read off a histogram's ``_sum`` (TGI's and Dynamo's token totals) is that histogram's family.
    None (every family) for a per-model engine (Triton): which models count is read from all its samples.
    """
    emap = engine_map(engine)
    if emap.requests:
        return None
    names = {n for m in emap.metrics for n in m.names} | set(emap.renames)
    return frozenset(n for name in names for n in (name, name.removesuffix("_total"), name.removesuffix("_sum")))


STALE_AFTER_S = 300.0  # Prometheus' lookback delta: a series unseen this long is stale


class SourceState(msgspec.Struct):
    """What the watcher remembers per source, with Prometheus' ``up`` and staleness.

    As Prometheus does per target: ``up`` is 1 when the last poll succeeded, 0 when it failed;
    a failed poll makes the source's series stale at once (their last values are no longer
    current, so they are not shown or exported), and so does a last good poll older than the
    lookback (:data:`STALE_AFTER_S`). ``scrape_duration_s`` is the last poll's duration.
    """

    last: Observation | None = None
    failing_since: float | None = None
    last_error: str = ""
    up: bool = False
    scrape_duration_s: float = float("nan")
    last_ok_s: float = float("nan")  # wall clock of the last good poll (a saved file's own time may be old)

    def stale(self, now_s: float) -> bool:
        """Whether the source's last values are no longer current."""
        return not self.up or self.last is None or not now_s - self.last_ok_s <= STALE_AFTER_S


class Watcher(msgspec.Struct):
    """Poll sources with ``fetch``; log observations and events; hand each new Window to the caller."""

    sources: list[str]
    fetch: Fetcher
    log: JsonlLog | None = None
    engine: str | None = None
    model_label: str | None = None
    state: dict[str, SourceState] = msgspec.field(default_factory=dict)
    events: list[dict[str, Any]] = msgspec.field(default_factory=list)
    many: ManyFetcher | None = None  # scrapes every source at once (else one by one with ``fetch``)

    def __post_init__(self) -> None:
        for s in self.sources:
            self.state.setdefault(s, SourceState())
        if self.log:
            self._resume()

    def _resume(self) -> None:
        assert self.log is not None
        for rec in self.log.read():
            src = rec.get("source") if isinstance(rec, dict) else None
            if isinstance(src, str) and src in self.state and "scalars" in rec:
                try:
                    self.state[src].last = Observation.from_json(rec)
                except (msgspec.ValidationError, ValueError):
                    continue  # a malformed line is skipped like a line torn by a crash

    def _event(self, record: dict[str, Any]) -> None:
        self.events.append(record)
        if self.log:
            self.log.append(record)

    def _scrape_all(self) -> list[tuple[float, float, Observation | RooftopError]]:
        """(wall clock at the start, seconds, observation or error) of each source's scrape.

        With ``many`` every source is scraped at once, as Prometheus scrapes its targets, each
        page parsed only for the families its engine's map reads once the engine is known (the
        engine detected at the first poll is kept: detection scans every sample).
        """
        now = time.time()
        states = [self.state[src] for src in self.sources]
        engines = [self.engine or (st.last.engine if st.up and st.last else None) for st in states]
        found: list[tuple[Snapshot | RooftopError, float]] = []
        if self.many is not None:
            found = self.many(self.sources, [families(e) if e else None for e in engines])
        else:
            for src in self.sources:
                t0 = time.perf_counter()
                try:
                    found.append((self.fetch(src), time.perf_counter() - t0))
                except RooftopError as exc:
                    found.append((exc, time.perf_counter() - t0))
        out: list[tuple[float, float, Observation | RooftopError]] = []
        for src, engine, (snap, took) in zip(self.sources, engines, found, strict=True):
            t0 = time.perf_counter()
            try:
                seen: Observation | RooftopError = (
                    snap if isinstance(snap, RooftopError) else observe(snap, src, engine, self.model_label)
                )
            except RooftopError as exc:
                seen = exc
            out.append((now, took + time.perf_counter() - t0, seen))
        return out

    def poll(self) -> list[Window]:
        """Poll every source once; return the windows that closed. Never raises for a bad source."""
        out = []
        for src, (now, took, found) in zip(self.sources, self._scrape_all(), strict=True):
            st = self.state[src]
            if isinstance(found, RooftopError):
                st.up, st.scrape_duration_s = False, took
                if st.failing_since is None:
                    st.failing_since = now
                st.last_error = str(found)
                self._event({"t": now, "source": src, "event": "error", "error": str(found)})
                continue
            obs = found
            st.up, st.scrape_duration_s, st.last_ok_s = True, took, now
            if st.failing_since is not None:
                since = st.last.time_s if st.last else st.failing_since
                self._event(
                    {
                        "t": obs.time_s,
                        "source": src,
                        "event": "gap",
                        "from": since,
                        "to": obs.time_s,
                        "gap_s": obs.time_s - since,
                        "error": st.last_error,
                    }
                )
                st.failing_since, st.last_error = None, ""
            if self.log:
                self.log.append(obs.to_json())
            if st.last is not None and st.last.engine == obs.engine and obs.time_s > st.last.time_s:
                w = window(st.last, obs)
                if w.reset:
                    self._event(
                        {
                            "t": obs.time_s,
                            "source": src,
                            "event": "reset",
                            "detail": "a counter went down: the engine restarted",
                        }
                    )
                out.append(w)
            st.last = obs
        return out

    def run(self, interval_s: float, on_windows: Callable[[list[Window]], None], polls: int | None = None) -> None:
        """Poll every ``interval_s`` until ``polls`` polls (forever when None) or Ctrl-C."""
        done = 0
        with fewer_collections():
            while polls is None or done < polls:
                started = time.monotonic()
                on_windows(self.poll())
                done += 1
                if polls is not None and done >= polls:
                    break
                time.sleep(max(0.0, interval_s - (time.monotonic() - started)))


def file_or_url(source: str, timeout_s: float) -> Snapshot:
    """Fetch a URL, or read a saved exposition file."""
    snap, _ = files_or_urls([source], [None], timeout_s)[0]
    if isinstance(snap, RooftopError):
        raise snap
    return snap


def files_or_urls(
    sources: list[str], wanted: list[frozenset[str] | None], timeout_s: float
) -> list[tuple[Snapshot | RooftopError, float]]:
    """(snapshot or error, seconds) of each source: the URLs scraped at once, the saved exposition files read.

    ``wanted[i]``: the families needed of ``sources[i]`` (:func:`families`; None: every family).
    """
    from rooftop.serving.sources import fetch_many, read_file

    urls = [i for i, s in enumerate(sources) if s.startswith(("http://", "https://"))]
    out: dict[int, tuple[Snapshot | RooftopError, float]] = {}
    if urls:
        out.update(zip(urls, fetch_many([sources[i] for i in urls], timeout_s, [wanted[i] for i in urls]), strict=True))
    for i, source in enumerate(sources):
        if i in out:
            continue
        t0 = time.perf_counter()
        try:
            if not Path(source).exists():
                raise TelemetryError(f"{source}: neither an http(s) URL nor an existing exposition file")
            out[i] = (read_file(source), time.perf_counter() - t0)
        except RooftopError as exc:
            out[i] = (exc, time.perf_counter() - t0)
    return [out[i] for i in range(len(sources))]
