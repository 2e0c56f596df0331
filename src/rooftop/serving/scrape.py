"""HTTP GETs for scrapes and Prometheus queries, through libcurl (pycurl), many in flight at once.

A watch of a hundred endpoints sends every scrape of a poll at once, as Prometheus scrapes its
targets: an endpoint that hangs holds a poll up by its timeout once, not once per hanging
endpoint, and no other source's window waits for it. libcurl parses the status line and headers
in C (http.client parsed them with the email package: ~0.25 ms of Python a scrape on the
2-core box; a whole exchange here is ~0.2 ms of CPU, kernel included).

Each GET has a total deadline (a server trickling a byte at a time is cut there), keeps its
connection alive between polls, follows no redirect, speaks only http and https, ignores the
proxy variables (as http.client did) and reads at most MAX_BODY_BYTES after decompression (the
encodings libcurl decodes: gzip, deflate, br, zstd; a gzip bomb stops at the cap). Every failure
is a TelemetryError naming the URL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rooftop.errors import TelemetryError, one_line

__all__ = ["MAX_BODY_BYTES", "MAX_TIMEOUT_S", "check_timeout", "get", "get_many"]

MAX_BODY_BYTES = 64 << 20  # a /metrics page or a Prometheus answer, after decompression
MAX_TIMEOUT_S = 86400.0
BUFFER_BYTES = 64 << 10  # libcurl's receive buffer: a 50 kB vLLM page in one write
_HANDLES: dict[str, Any] = {}  # one libcurl handle per URL (less its query), its connection kept alive
_MULTI: list[Any] = []  # the one multi handle: every GET goes through it, its connection cache shared


def check_timeout(timeout_s: float, what: str = "--timeout") -> float:
    """A timeout must be a positive, finite number of seconds (0, -1, NaN and inf wait forever or never)."""
    if not 0 < timeout_s <= MAX_TIMEOUT_S:
        raise TelemetryError(f"{what} {timeout_s!r}: expected seconds in (0, {MAX_TIMEOUT_S:g}]")
    return timeout_s


def get(url: str, timeout_s: float) -> str:
    """The body of a GET of ``url`` within ``timeout_s`` in all; TelemetryError on any failure."""
    body, _ = get_many([url], timeout_s)[0]
    if isinstance(body, TelemetryError):
        raise body
    return body


def get_many(urls: Sequence[str], timeout_s: float) -> list[tuple[str | TelemetryError, float]]:
    """(body or error, seconds it took) of a GET of each URL, all at once, each within ``timeout_s``."""
    import pycurl

    check_timeout(timeout_s)
    gets: dict[str, _Get] = {}
    for url in urls:  # a URL given twice is fetched once
        if url not in gets:
            gets[url] = _Get(url, timeout_s)
    if not _MULTI:
        _MULTI.append(pycurl.CurlMulti())
    multi = _MULTI[0]
    sent = [g for g in gets.values() if not g.refused]
    for g in sent:
        multi.add_handle(g.curl)
    failed: dict[int, tuple[int, str]] = {}
    try:
        running = len(sent)
        while running:
            ret, running = multi.perform()
            if ret == pycurl.E_CALL_MULTI_PERFORM:
                continue
            if running:
                wait_ms = multi.timeout()  # libcurl's next deadline (-1: none set)
                multi.select(1.0 if wait_ms < 0 else min(1.0, max(wait_ms, 1) / 1000))
        while True:
            queued, _, errors = multi.info_read()
            failed.update((id(c), (code, message)) for c, code, message in errors)
            if not queued:
                break
    finally:
        for g in sent:
            multi.remove_handle(g.curl)
    outcomes = {url: g.outcome(failed.get(id(g.curl))) for url, g in gets.items()}
    return [outcomes[url] for url in urls]


def _handle() -> Any:
    """A libcurl handle set up once: keep-alive, gzip, http(s) only, no proxy, CA certificates of this system."""
    import ssl

    import pycurl

    c = pycurl.Curl()
    c.setopt(pycurl.NOSIGNAL, 1)
    c.setopt(pycurl.ACCEPT_ENCODING, "gzip")
    c.setopt(pycurl.PROTOCOLS, pycurl.PROTO_HTTP | pycurl.PROTO_HTTPS)
    c.setopt(pycurl.PROXY, "")
    c.setopt(pycurl.BUFFERSIZE, BUFFER_BYTES)
    paths = ssl.get_default_verify_paths()  # the wheel's libcurl may look for them elsewhere
    if paths.cafile:
        c.setopt(pycurl.CAINFO, paths.cafile)
    if paths.capath:
        c.setopt(pycurl.CAPATH, paths.capath)
    return c


class _Get:
    """One GET in flight: its URL, its handle, and the body so far (capped at MAX_BODY_BYTES)."""

    def __init__(self, url: str, timeout_s: float) -> None:
        import pycurl

        self.url, self.timeout_s = url, timeout_s
        self.parts: list[bytes] = []
        self.headers: list[bytes] = []
        self.size, self.capped = 0, False
        key = url.split("?", 1)[0]
        if key not in _HANDLES:
            _HANDLES[key] = _handle()
        c = self.curl = _HANDLES[key]
        self.refused = ""  # why libcurl would not take the URL at all
        try:
            c.setopt(pycurl.URL, url)
        except ValueError as exc:  # a NUL byte
            self.refused = str(exc)
        c.setopt(pycurl.TIMEOUT_MS, max(1, round(timeout_s * 1000)))
        c.setopt(pycurl.WRITEFUNCTION, self._write)
        c.setopt(pycurl.HEADERFUNCTION, self.headers.append)

    def _write(self, data: bytes) -> int | None:
        self.size += len(data)
        if self.size > MAX_BODY_BYTES:
            self.capped = True
            return 0  # fewer bytes taken than given: libcurl ends the transfer
        self.parts.append(data)
        return None

    def outcome(self, error: tuple[int, str] | None) -> tuple[str | TelemetryError, float]:
        """(body or error, seconds): the error names the URL and what went wrong."""
        import pycurl

        if self.refused:
            return TelemetryError(f"{one_line(repr(self.url))[:200]}: not a URL ({self.refused})"), 0.0
        took = float(self.curl.getinfo(pycurl.TOTAL_TIME))
        body, self.parts = b"".join(self.parts), []
        if self.capped:
            return TelemetryError(f"{self.url}: body larger than {MAX_BODY_BYTES >> 20} MiB (decompressed)"), took
        if error is not None:
            code, message = error
            if code == pycurl.E_OPERATION_TIMEDOUT:
                return TelemetryError(f"{self.url}: no answer within {self.timeout_s:g} s (hanging endpoint)"), took
            if code == pycurl.E_BAD_CONTENT_ENCODING:
                why = f"Content-Encoding {_encoding(self.headers)!r}: {one_line(message)[:120]}"
                return TelemetryError(f"{self.url}: cannot decode the body ({why})"), took
            return TelemetryError(f"{self.url}: unreachable (curl error {code}: {one_line(message)[:200]})"), took
        status = int(self.curl.getinfo(pycurl.RESPONSE_CODE))
        if status != 200:
            return TelemetryError(f"{self.url}: HTTP {status}"), took
        return body.decode("utf-8", "replace"), took


def _encoding(headers: list[bytes]) -> str:
    """The Content-Encoding the answer named ('' when none), for the error of a body libcurl cannot decode."""
    for line in reversed(headers):
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-encoding":
            return value.strip()[:40]
    return ""
