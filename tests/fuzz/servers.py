"""A misbehaving HTTP server on 127.0.0.1 for the hostile-input tests and the fuzz campaign.

Every answer is a *script*: an iterable of ``(pause_s, bytes)`` writes, chosen per request by
``route(method, path, body)``. A script can trickle one byte every 2 s, never finish, send a
gzip bomb, cut a stream, or stream a 200 MB line lazily (the bytes are made as they are sent).
"""

from __future__ import annotations

import gzip
import json
import socketserver
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

Script = Iterable[tuple[float, bytes]]
Route = Callable[[str, str, bytes], Script]


def response(body: bytes | str, status: int = 200, headers: dict[str, str] | None = None) -> Script:
    """A whole HTTP/1.1 answer in one write (Connection: close)."""
    data = body.encode() if isinstance(body, str) else body
    head = {"content-type": "text/plain", "content-length": str(len(data)), "connection": "close", **(headers or {})}
    lines = "".join(f"{k}: {v}\r\n" for k, v in head.items())
    return [(0.0, f"HTTP/1.1 {status} X\r\n{lines}\r\n".encode() + data)]


def streaming_head(content_type: str = "text/event-stream", headers: dict[str, str] | None = None) -> bytes:
    """The head of an answer whose body runs until the connection closes."""
    head = {"content-type": content_type, "connection": "close", **(headers or {})}
    return ("HTTP/1.1 200 OK\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items()) + "\r\n").encode()


def sse(chunks: Iterable[Any], done: bool = True) -> Script:
    """An SSE stream of ``chunks`` (dicts as JSON, str/bytes as written), then ``[DONE]`` when ``done``."""
    yield 0.0, streaming_head()
    for chunk in chunks:
        raw = chunk if isinstance(chunk, bytes) else (chunk if isinstance(chunk, str) else json.dumps(chunk)).encode()
        yield 0.0, b"data: " + raw + b"\n\n"
    if done:
        yield 0.0, b"data: [DONE]\n\n"


def trickle(data: bytes, every_s: float) -> Script:
    """A /metrics answer sent one byte every ``every_s`` seconds."""
    yield 0.0, streaming_head("text/plain")
    for i in range(len(data)):
        yield every_s, data[i : i + 1]


def gzip_bomb(inflated_bytes: int) -> Script:
    """A Content-Encoding: gzip body of ``inflated_bytes`` zeros (about 1000x smaller on the wire)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"0" * (1 << 20)
    yield 0.0, streaming_head("text/plain", {"content-encoding": "gzip"})
    for _ in range(inflated_bytes >> 20):
        yield 0.0, compressor.compress(block)
    yield 0.0, compressor.flush()


def long_line(total_bytes: int) -> Script:
    """An SSE stream whose first line is ``total_bytes`` long, made 1 MiB at a time."""
    yield 0.0, streaming_head()
    yield 0.0, b'data: {"choices": [{"text": "'
    for _ in range(total_bytes >> 20):
        yield 0.0, b"x" * (1 << 20)


def gzipped(text: str) -> Script:
    """A well-formed gzip-encoded answer (the control case)."""
    return response(gzip.compress(text.encode()), headers={"content-encoding": "gzip"})


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        sock = self.request
        sock.settimeout(30)
        try:
            buf = b""
            while b"\r\n\r\n" not in buf:
                piece = sock.recv(65536)
                if not piece:
                    return
                buf += piece
            head, _, rest = buf.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path = ([*lines[0].split(" "), "", ""])[:2]
            length = next(
                (int(v) for k, _, v in (ln.partition(":") for ln in lines[1:]) if k.lower() == "content-length"), 0
            )
            while len(rest) < length:
                piece = sock.recv(65536)
                if not piece:
                    break
                rest += piece
            self.server.hits += 1
            for pause, data in self.server.route(method, path, rest):
                if pause:
                    time.sleep(pause)
                if self.server.closing:
                    return
                sock.sendall(data)
        except OSError:
            return  # the client gave up (what a deadline is for)


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    route: Route
    hits = 0
    closing = False


class HostileServer:
    """``with HostileServer(route) as srv: srv.url``; ``srv.route`` may be replaced between requests."""

    def __init__(self, route: Route | None = None) -> None:
        self.server = _Server(("127.0.0.1", 0), _Handler)
        self.server.route = route or (lambda m, p, b: response("ok"))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def route(self) -> Route:
        return self.server.route

    @route.setter
    def route(self, value: Route) -> None:
        self.server.route = value

    @property
    def hits(self) -> int:
        return self.server.hits

    def __enter__(self) -> HostileServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.closing = True
        self.server.shutdown()
        self.server.server_close()


def completions(chunks_for: Callable[[int, dict[str, Any]], Script]) -> Route:
    """A route for an OpenAI-style server: /v1/models lists 'fuzz'; POSTs get ``chunks_for(n, request)``."""
    count = iter(range(1 << 62))

    def route(method: str, path: str, body: bytes) -> Iterator[tuple[float, bytes]]:
        if path.startswith("/v1/models"):
            yield from response(json.dumps({"data": [{"id": "fuzz"}]}))
        elif method == "POST":
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                request = {}
            yield from chunks_for(next(count), request if isinstance(request, dict) else {})
        else:
            yield from response("", status=404)

    return route
