"""A fake Prometheus HTTP API on 127.0.0.1 (answers set by the test; records every query it gets)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


class FakePrometheus:
    """``answers`` maps an API path (/api/v1/query, /api/v1/query_range) to (HTTP status, body text)."""

    def __init__(self) -> None:
        self.answers: dict[str, tuple[int, str]] = {}
        self.queries: list[tuple[str, dict[str, str]]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                fake.queries.append((url.path, {k: v[0] for k, v in parse_qs(url.query).items()}))
                status, text = fake.answers.get(url.path, (404, "not found"))
                data = text.encode()
                self.send_response(status)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def answer(self, path: str, data: Any, status: int = 200) -> None:
        """Answer ``path`` with ``data`` as JSON (a str is sent as it is)."""
        self.answers[path] = (status, data if isinstance(data, str) else json.dumps(data))

    def __enter__(self) -> FakePrometheus:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
