"""Where snapshots come from: an engine's /metrics URL, a saved exposition file, or a Prometheus server.

Every failure becomes a TelemetryError that names the URL and what went wrong (refused, timed
out, HTTP status, not exposition format), so a watch loop can report it and carry on.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import msgspec

from rooftop.errors import TelemetryError
from rooftop.serving.engines import engine_name_regex, read_names
from rooftop.serving.exposition import Sample, Snapshot, checked, parse, unique
from rooftop.serving.scrape import MAX_BODY_BYTES, get, get_many

__all__ = ["fetch", "fetch_many", "metrics_url", "prometheus_instant", "prometheus_range", "read_file"]


def metrics_url(url: str) -> str:
    """``http://host:port`` → ``http://host:port/metrics`` (a URL with a path is kept)."""
    rest = url.split("://", 1)[-1]
    return url if "/" in rest.rstrip("/") else url.rstrip("/") + "/metrics"


def fetch(url: str, timeout_s: float = 5.0, families: frozenset[str] | None = None) -> Snapshot:
    """Scrape one /metrics endpoint (``families``: only these are needed; see exposition.parse)."""
    snap, _ = fetch_many([url], timeout_s, [families])[0]
    if isinstance(snap, TelemetryError):
        raise snap
    return snap


def fetch_many(
    urls: Sequence[str], timeout_s: float, families: Sequence[frozenset[str] | None]
) -> list[tuple[Snapshot | TelemetryError, float]]:
    """(snapshot or error, seconds) of each /metrics endpoint, all scraped at once (serving/scrape.py).

    ``families[i]``: the families needed of ``urls[i]`` (None: all). The seconds are the exchange's and the parsing's.
    """
    targets = [metrics_url(u) for u in urls]
    out: list[tuple[Snapshot | TelemetryError, float]] = []
    for target, wanted, (body, took) in zip(targets, families, get_many(targets, timeout_s), strict=True):
        if isinstance(body, TelemetryError):
            out.append((body, took))
            continue
        t0 = time.perf_counter()
        try:
            snap: Snapshot | TelemetryError = parse(body, time.time(), target, wanted, read_names())
        except TelemetryError as exc:
            snap = exc
        out.append((snap, took + time.perf_counter() - t0))
    return out


def read_file(path: str | Path) -> Snapshot:
    """A saved exposition file (for offline analysis); its time is the file's modification time."""
    from rooftop.core.safejson import read_bounded

    p = Path(path)
    try:
        raw = read_bounded(p, TelemetryError, MAX_BODY_BYTES)
    except TelemetryError as exc:
        raise TelemetryError(f"{p}: cannot read: {str(exc).rsplit(': ', 1)[-1]}") from None
    try:
        return parse(raw.decode("utf-8"), p.stat().st_mtime, str(p), judged=read_names())
    except UnicodeDecodeError:
        raise TelemetryError(f"{p}: not a text exposition file") from None


def _query(base: str, selector: str) -> str:
    inner = f'__name__=~"{engine_name_regex()}"'
    return "{" + inner + (f",{selector}" if selector else "") + "}"


class _Answer(msgspec.Struct):
    """A Prometheus HTTP API answer (status and error first: a failed query has no data)."""

    status: str
    data: Any = None
    error: str = ""


class _Instant(msgspec.Struct):
    metric: dict[str, str]
    value: tuple[float, str]


class _Series(msgspec.Struct):
    metric: dict[str, str]
    values: list[tuple[float, str]]


class _Vector(msgspec.Struct):
    resultType: Literal["vector"]
    result: list[_Instant]


class _Matrix(msgspec.Struct):
    resultType: Literal["matrix"]
    result: list[_Series]


def _json(base: str, path: str, params: dict[str, Any], timeout_s: float, shape: type[Any]) -> Any:
    from urllib.parse import urlencode

    from rooftop.core.safejson import loads_json

    url = base.rstrip("/") + path
    text = get(f"{url}?{urlencode(params)}", timeout_s)
    data = loads_json(text, f"{url}: not a Prometheus API answer;", TelemetryError)
    try:
        answer = msgspec.convert(data, _Answer)
        if answer.status != "success":
            raise TelemetryError(f"{url}: query failed: {answer.error[:200] or answer.status[:40]}")
        return msgspec.convert(answer.data, shape)
    except msgspec.ValidationError as exc:
        raise TelemetryError(f"{url}: not a Prometheus {shape.__name__[1:].lower()} answer ({exc})") from None


def _sample(metric: dict[str, str], value: str, where: str) -> Sample | None:
    labels = tuple(sorted((k, v) for k, v in metric.items() if k != "__name__"))
    try:
        number = float(value)
    except ValueError:
        raise TelemetryError(f"{where}: value {value[:40]!r} of {metric.get('__name__', '')} is not a number") from None
    return checked(Sample(metric.get("__name__", ""), labels, number), where, read_names())


def _time(stamp: float, where: str) -> float:
    if not 0 <= stamp < 1e11:  # Unix seconds, up to year 5138
        raise TelemetryError(f"{where}: timestamp {stamp!r} is not Unix seconds")
    return stamp


def prometheus_instant(base: str, selector: str = "", timeout_s: float = 10.0, at_s: float | None = None) -> Snapshot:
    """Every engine series matching ``selector`` (e.g. 'job="vllm"') from a Prometheus server, now or at ``at_s``."""
    params: dict[str, Any] = {"query": _query(base, selector)}
    if at_s is not None:
        params["time"] = at_s
    data: _Vector = _json(base, "/api/v1/query", params, timeout_s, _Vector)
    samples = [_sample(r.metric, r.value[1], base) for r in data.result]
    stamp = max((_time(r.value[0], base) for r in data.result), default=at_s or time.time())
    return Snapshot(unique([x for x in samples if x is not None], base), stamp, f"{base} {selector}".strip())


def prometheus_range(
    base: str, selector: str, start_s: float, end_s: float, step_s: float, timeout_s: float = 30.0
) -> list[Snapshot]:
    """Snapshots at each step of [start, end] from a range query (for rates over a past window)."""
    params = {"query": _query(base, selector), "start": start_s, "end": end_s, "step": step_s}
    data: _Matrix = _json(base, "/api/v1/query_range", params, timeout_s, _Matrix)
    by_time: dict[float, list[Sample]] = {}
    for series in data.result:
        for stamp, value in series.values:
            sample = _sample(series.metric, value, base)
            if sample is not None:
                by_time.setdefault(_time(stamp, base), []).append(sample)
    return [Snapshot(unique(v, base), t, f"{base} {selector}".strip()) for t, v in sorted(by_time.items())]
