"""Where snapshots come from: an engine's /metrics URL, a saved exposition file, or a Prometheus server.

Every failure becomes a TelemetryError that names the URL and what went wrong (refused, timed
out, HTTP status, not exposition format), so a watch loop can report it and carry on.
"""

from __future__ import annotations

import threading
import time
import zlib
from pathlib import Path
from typing import Any, Literal

import msgspec

from rooftop.errors import TelemetryError
from rooftop.serving.exposition import ENGINE_NAME_REGEX, Sample, Snapshot, checked, parse, unique

__all__ = ["ENGINE_NAME_REGEX", "fetch", "metrics_url", "prometheus_instant", "prometheus_range", "read_file"]


def metrics_url(url: str) -> str:
    """``http://host:port`` → ``http://host:port/metrics`` (a URL with a path is kept)."""
    rest = url.split("://", 1)[-1]
    return url if "/" in rest.rstrip("/") else url.rstrip("/") + "/metrics"


MAX_BODY_BYTES = 64 << 20  # a /metrics page or a Prometheus answer, after decompression
_ENCODINGS = {"": None, "identity": None, "gzip": 47, "x-gzip": 47, "deflate": 47}  # zlib wbits: gzip or zlib


def check_timeout(timeout_s: float, what: str = "--timeout") -> float:
    """A timeout must be a positive, finite number of seconds (0, -1, NaN and inf wait forever or never)."""
    if not 0 < timeout_s <= MAX_TIMEOUT_S:
        raise TelemetryError(f"{what} {timeout_s!r}: expected seconds in (0, {MAX_TIMEOUT_S:g}]")
    return timeout_s


MAX_TIMEOUT_S = 86400.0


_CLIENTS: dict[str, Any] = {}  # one keep-alive client per origin: a new client costs an SSL context
# (~10-80 ms CPU), and one pool shared by many origins costs a scan of every connection per request


def _client(url: str) -> Any:
    import httpx

    origin = "/".join(url.split("/", 3)[:3])
    if origin not in _CLIENTS:
        if "" not in _CLIENTS:
            _CLIENTS[""] = httpx.create_ssl_context()  # built once, shared by every client
        _CLIENTS[origin] = httpx.Client(verify=_CLIENTS[""])
    return _CLIENTS[origin]


def _get(url: str, timeout_s: float, params: dict[str, Any] | None = None) -> str:
    """GET ``url`` within ``timeout_s`` in all (a total deadline, not per read), body capped at 64 MiB.

    The download runs in a daemon thread: a server that trickles one byte at a time cannot hold
    the caller past the deadline (the thread ends at its next read or per-read timeout).
    """
    check_timeout(timeout_s)
    box: dict[str, Any] = {}
    deadline = time.monotonic() + timeout_s

    def work() -> None:
        try:
            box["text"] = _download(url, timeout_s, params, deadline)
        except Exception as exc:  # handed to the caller below
            box["error"] = exc

    worker = threading.Thread(target=work, name="rooftop-scrape", daemon=True)
    worker.start()
    worker.join(timeout_s + 0.05)
    if worker.is_alive() or isinstance(box.get("error"), _Late):
        raise TelemetryError(f"{url}: no answer within {timeout_s:g} s (hanging or trickling endpoint)")
    if "error" in box:
        raise box["error"]
    return str(box["text"])


class _Late(Exception):
    pass


def _download(url: str, timeout_s: float, params: dict[str, Any] | None, deadline: float) -> str:
    import httpx

    try:
        headers = {"Accept-Encoding": "gzip"}
        with _client(url).stream("GET", url, params=params, timeout=timeout_s, headers=headers) as resp:
            if resp.status_code != 200:
                raise TelemetryError(f"{url}: HTTP {resp.status_code}")
            encoding = resp.headers.get("content-encoding", "").strip().lower()
            if encoding not in _ENCODINGS:
                raise TelemetryError(f"{url}: unsupported Content-Encoding {encoding[:40]!r}")
            return _body(url, resp.iter_raw(), _ENCODINGS[encoding], deadline)
    except httpx.TimeoutException:
        raise _Late from None
    except httpx.HTTPError as exc:
        raise TelemetryError(f"{url}: unreachable ({type(exc).__name__}: {str(exc)[:200]})") from None


def _body(url: str, chunks: Any, wbits: int | None, deadline: float) -> str:
    """The body's text, inflated at most to MAX_BODY_BYTES (a gzip bomb stops there)."""
    inflate = zlib.decompressobj(wbits) if wbits is not None else None
    parts: list[bytes] = []
    size = 0
    try:
        for raw in chunks:
            if time.monotonic() > deadline:
                raise _Late
            data = inflate.decompress(raw, MAX_BODY_BYTES + 1 - size) if inflate else raw
            size += len(data)
            if size > MAX_BODY_BYTES or (inflate is not None and inflate.unconsumed_tail):
                raise TelemetryError(f"{url}: body larger than {MAX_BODY_BYTES >> 20} MiB (decompressed)")
            parts.append(data)
    except zlib.error as exc:
        raise TelemetryError(f"{url}: corrupt compressed body ({exc})") from None
    return b"".join(parts).decode("utf-8", "replace")


def fetch(url: str, timeout_s: float = 5.0) -> Snapshot:
    """Scrape one /metrics endpoint."""
    target = metrics_url(url)
    text = _get(target, timeout_s)
    return parse(text, time.time(), target)


def read_file(path: str | Path) -> Snapshot:
    """A saved exposition file (for offline analysis); its time is the file's modification time."""
    from rooftop.core.safejson import read_bounded

    p = Path(path)
    try:
        raw = read_bounded(p, TelemetryError, MAX_BODY_BYTES)
    except TelemetryError as exc:
        raise TelemetryError(f"{p}: cannot read: {str(exc).rsplit(': ', 1)[-1]}") from None
    try:
        return parse(raw.decode("utf-8"), p.stat().st_mtime, str(p))
    except UnicodeDecodeError:
        raise TelemetryError(f"{p}: not a text exposition file") from None


def _query(base: str, selector: str) -> str:
    inner = f'__name__=~"{ENGINE_NAME_REGEX}"'
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
    from rooftop.core.safejson import loads_json

    url = base.rstrip("/") + path
    text = _get(url, timeout_s, params)
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
    return checked(Sample(metric.get("__name__", ""), labels, number), where)


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
