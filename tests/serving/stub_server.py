"""A tiny OpenAI-compatible stub on 127.0.0.1: streams max_tokens chunks instantly (or with a delay).

Also serves GET /metrics (text set by the test), GET /health, GET /v1/models, GET /version and the
profiler switch (POST /start_profile, /stop_profile; 404 unless ``profiling``), and misbehaves on request:
mode "hang" never answers, mode "garbage" answers /metrics with HTML. Run in a thread
(``StubServer().start()``) or as a process (``python -m tests.serving.stub_server PORT [DELAY_S]``).
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading


class StubServer:
    def __init__(self, port: int = 0, token_delay_s: float = 0.0, metrics: str = "") -> None:
        self.port = port
        self.token_delay_s = token_delay_s
        self.metrics = metrics
        self.mode = "ok"
        self.model = "stub-model"
        self.requests = 0
        self.version = ""  # GET /version answers {"version": ...} when set (as vLLM does)
        self.profiling = False  # POST /start_profile and /stop_profile exist (else 404, as vLLM without a config)
        self.profile_calls: list[dict] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode().split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {k.lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:] if ":" in ln)}
                raw = await reader.readexactly(int(headers.get("content-length", "0")))
                if self.mode == "hang":
                    await asyncio.sleep(3600)
                if path.startswith("/metrics"):
                    text = "<html>not metrics</html>" if self.mode == "garbage" else self.metrics
                    await self._plain(writer, text)
                elif path.startswith("/health"):
                    await self._plain(writer, "")
                elif path.startswith("/version") and self.version:
                    await self._plain(writer, json.dumps({"version": self.version}))
                elif path in ("/start_profile", "/stop_profile") and method == "POST" and self.profiling:
                    self.profile_calls.append({"path": path, **json.loads(raw or b"{}")})
                    await self._plain(writer, "")
                elif path in ("/start_profile", "/stop_profile"):  # a POST-only route answers GET with 405
                    status = b"405 Method Not Allowed" if self.profiling else b"404 Not Found"
                    writer.write(b"HTTP/1.1 %s\r\ncontent-length: 0\r\n\r\n" % status)
                elif path.startswith("/v1/models"):
                    await self._plain(writer, json.dumps({"data": [{"id": self.model}]}))
                elif method == "POST":
                    await self._stream(writer, json.loads(raw or b"{}"), path.endswith("chat/completions"))
                else:
                    writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, asyncio.CancelledError):
            pass  # a kept-alive connection still open when the server stops is cancelled: not an error
        finally:
            writer.close()

    async def _plain(self, writer: asyncio.StreamWriter, text: str) -> None:
        data = text.encode()
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: %d\r\n\r\n" % len(data) + data)

    async def _stream(self, writer: asyncio.StreamWriter, req: dict, chat: bool) -> None:
        self.requests += 1
        n = int(req.get("max_tokens", 16))
        prompt = req.get("prompt", "")
        p_len = len(prompt) if isinstance(prompt, list) else len(str(req.get("messages", prompt)).split())
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")

        def chunk(obj: object) -> bytes:
            data = f"data: {obj if isinstance(obj, str) else json.dumps(obj)}\n\n".encode()
            return b"%x\r\n%s\r\n" % (len(data), data)

        if chat:  # as vLLM: a role announcement (empty content) before the first token
            writer.write(chunk({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}))
        for i in range(n):
            if self.token_delay_s:
                await asyncio.sleep(self.token_delay_s)
            choice = {"index": 0, "delta": {"content": f"t{i} "}} if chat else {"index": 0, "text": f"t{i} "}
            writer.write(chunk({"choices": [choice]}))
            await writer.drain()
        usage = {"prompt_tokens": p_len, "completion_tokens": n, "total_tokens": p_len + n}
        writer.write(chunk({"choices": [], "usage": usage}) + chunk("[DONE]") + b"0\r\n\r\n")

    async def serve(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, backlog=4096)
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        async with self._server:
            await self._server.serve_forever()

    def start(self) -> StubServer:
        def main() -> None:
            self._loop = asyncio.new_event_loop()
            try:
                self._loop.run_until_complete(self.serve())
            except (asyncio.CancelledError, RuntimeError):
                pass
            finally:
                self._loop.run_until_complete(asyncio.sleep(0.05))
                self._loop.close()  # else its finalizer warns of an unclosed loop during some later test

        self._thread = threading.Thread(target=main, daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        async def down() -> None:
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        if self._loop and self._thread:
            asyncio.run_coroutine_threadsafe(down(), self._loop)
            self._thread.join(5)


if __name__ == "__main__":
    stub = StubServer(int(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 0.0)
    asyncio.run(stub.serve())
