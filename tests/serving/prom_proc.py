"""A real Prometheus (Debian's `prometheus` binary) on 127.0.0.1 for the tests: scrape targets, rule files, queries."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

needs_prometheus = pytest.mark.skipif(
    shutil.which("prometheus") is None, reason="prometheus binary absent (apt-get install prometheus)"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ready(url: str, timeout_s: float, every_s: float, alive: Callable[[], bool] = lambda: True) -> bool:
    """Whether GET ``url`` answers 200 within ``timeout_s`` (polled every ``every_s``) while ``alive()``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and alive():
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(every_s)
    return False


def serve_metrics(body: Callable[[float], str]) -> ThreadingHTTPServer:
    """A /metrics stub on 127.0.0.1, serving in a thread: ``body(seconds since the call)`` per scrape."""
    start = time.time()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            data = body(time.time() - start).encode()
            self.send_response(200)
            self.send_header("content-type", "text/plain; version=0.0.4")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


class Prometheus:
    """Scrapes ``targets`` (job name → host:port) every second and evaluates ``rule_files`` every second."""

    def __init__(self, folder: Path, targets: dict[str, str], rule_files: list[Path]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = folder / "prometheus.yml"
        lines = ["global: {scrape_interval: 1s, evaluation_interval: 1s}", "rule_files:"]
        lines += [f"  - '{p}'" for p in rule_files] or ["  []"]
        lines.append("scrape_configs:")
        for job, target in targets.items():
            lines.append(f"  - job_name: {job}\n    static_configs: [{{targets: ['{target}']}}]")
        config.write_text("\n".join(lines) + "\n")
        self.proc = subprocess.Popen(
            [
                "prometheus",
                f"--config.file={config}",
                f"--storage.tsdb.path={folder / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=(folder / "prometheus.log").open("wb"),
            env={**os.environ, "GOMAXPROCS": "2"},  # few OS threads on a shared CI box
        )
        if ready(f"{self.url}/-/ready", 60, 0.5):
            return
        self.stop()
        pytest.fail(f"prometheus not ready after 60 s: {(folder / 'prometheus.log').read_text()[-2000:]}")

    def api(self, path: str, **params: Any) -> Any:
        data = httpx.get(f"{self.url}/api/v1/{path}", params=params, timeout=10).json()
        assert data["status"] == "success", data
        return data["data"]

    def query(self, expr: str, at_s: float | None = None) -> list[dict[str, Any]]:
        params: dict[str, Any] = {"query": expr}
        if at_s is not None:
            params["time"] = at_s
        result: list[dict[str, Any]] = self.api("query", **params)["result"]
        return result

    def value(self, expr: str, at_s: float) -> float:
        """The single value of ``expr`` at ``at_s`` (fails when there is not exactly one series)."""
        result = self.query(expr, at_s)
        assert len(result) == 1, (expr, result)
        return float(result[0]["value"][1])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)


def steady(prom: Prometheus, probe: str, query: str, jobs: int, limit: float) -> dict[str, float]:
    """``query`` per job once the recorded rate ``probe`` has settled (rules over a 4 s window).

    A rate recorded before its window is full of 1 s scrapes is wrong both ways: the first
    evaluations divide a whole counter (thousands; ``limit`` rules them out), the next ones
    extrapolate from two or three samples (2.26 for 3.0 once) — and a scrape served late by a
    stalled process inflates one window (277 for 100 once). So two evaluations a second apart
    must agree within 1 % before ``query`` is read, two evaluations later. They must be two
    evaluations, not one read twice: a query a second later can return the same recorded sample
    (1.5 for 2.0 passed as settled once), so each reading carries its sample's own timestamp.
    """
    deadline = time.monotonic() + 60
    values: dict[str, float] = {}
    before: dict[str, float] = {}
    stamped: dict[str, float] = {}
    while time.monotonic() < deadline:
        time.sleep(1)
        rate = {s["metric"]["job"]: float(s["value"][1]) for s in prom.query(probe)}
        stamps = {s["metric"]["job"]: float(s["value"][1]) for s in prom.query(f"timestamp({probe})")}
        settled = rate.keys() == before.keys() and all(abs(rate[j] - before[j]) <= 0.01 * before[j] for j in rate)
        settled = settled and all(stamps.get(j) != stamped.get(j) for j in rate)
        before, stamped = rate, stamps
        if len(rate) == jobs and max(rate.values()) < limit and settled:
            time.sleep(2)
            values = {s["metric"]["job"]: float(s["value"][1]) for s in prom.query(query)}
            if len(values) == jobs:
                return values
    raise AssertionError(f"no steady {query} within 60 s: {values} (rates {before})")


def watch_accounts(prom: Prometheus, job: str, live: Any, te: float, window_s: float = 10.0) -> list[dict[str, Any]]:
    """watch's accounting of the window ending at ``te``, from Prometheus's own samples of ``job``.

    A recording rule evaluated at te saw two scrapes: the last one at or before te - window and the
    last one at or before te. Which scrape it saw can differ from what a later query sees (a scrape
    stamped just before te but stored after the evaluation, on a loaded machine), so the accounting
    is made for the last scrape at each end and the one before it: four windows, one of which the
    recorded values must equal.
    """
    from msgspec.structs import replace

    from rooftop.api.window import analyse_window
    from rooftop.serving.sources import prometheus_instant
    from rooftop.serving.watch import Observation, observe, window

    (scrapes,) = prom.query(f'up{{job="{job}"}}[40s]', te)
    stamps = [float(t) for t, _ in scrapes["values"]]

    def seen(at_s: float, stamp: float) -> Observation:
        snap = prometheus_instant(prom.url, f'job="{job}"', at_s=stamp)
        return replace(observe(snap, job, "vllm"), time_s=at_s)

    return [
        analyse_window(window(seen(te - window_s, a), seen(te, b)), live)[0]["accounting"]
        for a in [t for t in stamps if t <= te - window_s][-2:]
        for b in [t for t in stamps if t <= te][-2:]
    ]
