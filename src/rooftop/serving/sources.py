"""Where snapshots come from: an engine's /metrics URL, a saved exposition file, or a Prometheus server.

Every failure becomes a TelemetryError that names the URL and what went wrong (refused, timed
out, HTTP status, not exposition format), so a watch loop can report it and carry on.
"""

from __future__ import annotations

import http.client
import io
import time
from functools import partial
from pathlib import Path
from typing import Any, Literal

import msgspec

from rooftop.errors import TelemetryError, one_line
from rooftop.serving.engines import engine_name_regex, read_names
from rooftop.serving.exposition import Sample, Snapshot, checked, parse, unique

__all__ = ["fetch", "metrics_url", "prometheus_instant", "prometheus_range", "read_file"]


def metrics_url(url: str) -> str:
    """``http://host:port`` → ``http://host:port/metrics`` (a URL with a path is kept)."""
    rest = url.split("://", 1)[-1]
    return url if "/" in rest.rstrip("/") else url.rstrip("/") + "/metrics"


MAX_BODY_BYTES = 64 << 20  # a /metrics page or a Prometheus answer, after decompression
_INFLATE = {"": None, "identity": None, "gzip": 47, "x-gzip": 47, "deflate": 47}  # zlib wbits: gzip or zlib
_CONNS: dict[str, Any] = {}  # one keep-alive connection per origin (scheme://host:port), reused every poll
_TLS: list[Any] = []  # one SSL context per process (building one costs ~10-80 ms CPU)


def check_timeout(timeout_s: float, what: str = "--timeout") -> float:
    """A timeout must be a positive, finite number of seconds (0, -1, NaN and inf wait forever or never)."""
    if not 0 < timeout_s <= MAX_TIMEOUT_S:
        raise TelemetryError(f"{what} {timeout_s!r}: expected seconds in (0, {MAX_TIMEOUT_S:g}]")
    return timeout_s


MAX_TIMEOUT_S = 86400.0


class _Late(Exception):
    """The total deadline passed."""


class _DeadlineReader(io.RawIOBase):
    """The response's socket, every read waiting at most until the scrape's deadline.

    Status line, headers and body all come through it, so a server trickling bytes cannot hold a
    scrape past its deadline. It reads through the socket's own file object (which keeps the
    socket open after a ``Connection: close`` answer hands it to the response).
    """

    def __init__(self, sock: Any, deadline: float) -> None:
        self.sock, self.raw, self.deadline = sock, sock.makefile("rb", buffering=0), deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self.sock.settimeout(_left(self.deadline))
        return int(self.raw.readinto(buffer))

    def close(self) -> None:
        self.raw.close()
        super().close()


class _Response(http.client.HTTPResponse):
    def __init__(self, sock: Any, debuglevel: int = 0, method: str | None = None, deadline: float = 0.0) -> None:
        super().__init__(sock, debuglevel, method)
        self.fp.close()  # the plain file object http.client made: replaced by one that keeps the deadline
        self.fp = io.BufferedReader(_DeadlineReader(sock, deadline))


def _conn(origin: str, timeout_s: float) -> Any:
    """The kept-alive stdlib connection to ``origin``: ~0.25 ms CPU a scrape, a third of an httpx client's."""
    from urllib.parse import urlsplit

    if origin not in _CONNS:
        parts = urlsplit(origin)
        host, port = parts.hostname or "", parts.port
        if parts.scheme == "https":
            if not _TLS:
                import ssl

                _TLS.append(ssl.create_default_context())
            _CONNS[origin] = http.client.HTTPSConnection(host, port, timeout=timeout_s, context=_TLS[0])
        else:
            _CONNS[origin] = http.client.HTTPConnection(host, port, timeout=timeout_s)
    return _CONNS[origin]


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise _Late
    return left


def _read(url: str, resp: Any) -> bytes:
    """The body (each read waits at most until the deadline), inflated at most to MAX_BODY_BYTES."""
    import zlib

    encoding = (resp.getheader("content-encoding") or "").strip().lower()
    if encoding not in _INFLATE:
        raise TelemetryError(f"{url}: unsupported Content-Encoding {encoding[:40]!r}")
    wbits = _INFLATE[encoding]
    inflate = zlib.decompressobj(wbits) if wbits is not None else None
    parts: list[bytes] = []
    size = 0
    try:
        while True:
            raw = resp.read1(1 << 20)
            if not raw:
                resp.close()  # read to its end: the connection takes the next request
                break
            data = inflate.decompress(raw, MAX_BODY_BYTES + 1 - size) if inflate else raw
            size += len(data)
            if size > MAX_BODY_BYTES or (inflate is not None and inflate.unconsumed_tail):
                raise TelemetryError(f"{url}: body larger than {MAX_BODY_BYTES >> 20} MiB (decompressed)")
            parts.append(data)
    except zlib.error as exc:
        raise TelemetryError(f"{url}: corrupt compressed body ({exc})") from None
    return b"".join(parts)


def _get(url: str, timeout_s: float, params: dict[str, Any] | None = None) -> str:
    """GET ``url`` on the origin's kept-alive connection within ``timeout_s`` in all, body capped at 64 MiB."""
    check_timeout(timeout_s)
    if params:
        from urllib.parse import urlencode

        url = f"{url}?{urlencode(params)}"
    origin, _, rest = url.partition("://")[2].partition("/")
    origin = url.split("://", 1)[0] + "://" + origin
    deadline = time.monotonic() + timeout_s
    conn = _conn(origin, timeout_s)
    try:
        for attempt in (0, 1):  # a kept-alive connection the server closed meanwhile: one fresh retry
            try:
                if conn.sock is None:
                    conn.timeout = _left(deadline)
                else:
                    conn.sock.settimeout(_left(deadline))
                conn.response_class = partial(_Response, deadline=deadline)
                conn.request("GET", "/" + rest, headers={"Accept-Encoding": "gzip"})
                resp = conn.getresponse()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                conn.close()
                if attempt:
                    raise
        if resp.status != 200:
            conn.close()
            raise TelemetryError(f"{url}: HTTP {resp.status}")
        body = _read(url, resp)
    except (_Late, TimeoutError):
        conn.close()
        raise TelemetryError(f"{url}: no answer within {timeout_s:g} s (hanging endpoint)") from None
    except TelemetryError:
        conn.close()
        raise
    except (OSError, http.client.HTTPException) as exc:
        conn.close()
        raise TelemetryError(f"{url}: unreachable ({type(exc).__name__}: {one_line(str(exc)[:200])})") from None
    return body.decode("utf-8", "replace")


def fetch(url: str, timeout_s: float = 5.0, families: frozenset[str] | None = None) -> Snapshot:
    """Scrape one /metrics endpoint (``families``: only these are needed; see exposition.parse)."""
    target = metrics_url(url)
    text = _get(target, timeout_s)
    return parse(text, time.time(), target, families, read_names())


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
