"""`rooftop rules` inside a real Prometheus, scraping a /metrics stub on 127.0.0.1 whose counters grow steadily.

The stub plays a vLLM serving mixtral-8x7b on an H100 at one request per second, 100 prompt tokens
and 181 generated tokens each, one request running: 180 decode tokens/s at batch 1. Decode then
reads ~25 GB per token (weights of the two experts of each layer plus the attention and shared
weights): decode MBU ≈ 180 × 2.55e10 / 3.35e12 ≈ 1.37 (> 75 %) and decode MFU ≈ 180 × 2.55e10 /
989.4e12 ≈ 0.5 % (< 5 %) — scenario A, whose alert must fire. The recorded series must equal
watch's numbers over the same window (watch's own code on Prometheus's samples).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.serving.prom_proc import Prometheus, needs_prometheus

pytestmark = [pytest.mark.slow, needs_prometheus]

REQ_PER_S, PROMPT, OUTPUT = 1.0, 100.0, 181.0


def exposition(elapsed_s: float) -> str:
    t = 1000.0 + elapsed_s  # counters started long ago: no extrapolation toward zero
    lab = '{model_name="mixtral",engine="0"}'
    return (
        f"# TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total{lab} {PROMPT * REQ_PER_S * t}\n"
        f"# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{lab} {OUTPUT * REQ_PER_S * t}\n"
        f"# TYPE vllm:request_success_total counter\nvllm:request_success_total{lab} {REQ_PER_S * t}\n"
        f"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{lab} 1\n"
        f"# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{lab} 0\n"
        f"# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{lab} 0.25\n"
    )


def serve_counters() -> ThreadingHTTPServer:
    """The stub, serving in a thread (its counters start at the call)."""
    start = time.time()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = exposition(time.time() - start).encode()
            self.send_response(200)
            self.send_header("content-type", "text/plain; version=0.0.4")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


@pytest.fixture
def stub() -> Iterator[str]:
    server = serve_counters()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_scenario_a_fires_and_records_match_watch(stub: str, tmp_path: Path) -> None:
    from rooftop.api.live_model import live_model
    from rooftop.api.window import analyse_window
    from rooftop.serving.sources import prometheus_instant
    from rooftop.serving.watch import observe, window

    rules = tmp_path / "rooftop.yml"
    args = ("rules", "-m", "mixtral-8x7b", "-H", "h100-sxm", "--selector", 'job="stub"', "--window", "10s")
    proc = run_cli(*args, "--for", "2s", "--trend", "10s", "-o", str(rules))
    assert proc.returncode == 0, proc.stderr
    prom = Prometheus(tmp_path, {"stub": stub}, [rules])
    try:
        alert = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and alert is None:
            time.sleep(1)
            firing = [a for a in prom.api("alerts")["alerts"] if a["state"] == "firing"]
            alert = next((a for a in firing if a["labels"]["alertname"] == "RooftopDecodeMemoryBound"), None)
        assert alert is not None, prom.api("alerts")
        assert alert["labels"]["scenario"] == "A" and alert["labels"]["model"] == "mixtral-8x7b"
        assert "continuous batching" in alert["annotations"]["remedy"]
        others = {a["labels"]["alertname"] for a in firing} - {"RooftopDecodeMemoryBound"}
        assert not others, others  # KV at 25 %, nothing waiting, MFU/MBU not both low
        time.sleep(12)  # a full 10 s window of samples behind the evaluation we compare
        # one recorded evaluation, and watch's window over the same 10 s ending there: both take the same two
        # samples (the one at te and the last one at or before te - 10 s), so they agree to rounding
        sel = 'model="mixtral-8x7b",device="h100-sxm"'
        (series,) = prom.query(f'rooftop:mfu{{{sel},phase="decode"}}[5s]')
        te = float(series["values"][-1][0])
        first = observe(prometheus_instant(prom.url, 'job="stub"', at_s=te - 10.0), "stub", "vllm")
        last = observe(prometheus_instant(prom.url, 'job="stub"', at_s=te), "stub", "vllm")
        summary, _ = analyse_window(window(first, last), live_model("mixtral-8x7b", "h100-sxm"))
        acc = summary["accounting"]
        got = {
            (name, phase): prom.value(f'{name}{{{sel},phase="{phase}"}}', te)
            for name in ("rooftop:mfu", "rooftop:mbu", "rooftop:tokens_per_s")
            for phase in ("prefill", "decode")
        }
        print(f"window ending {te}: watch {acc['mfu']} {acc['mbu']} {acc['tokens']}; rules {got}")
        for phase in ("prefill", "decode"):
            assert got["rooftop:mfu", phase] == pytest.approx(acc["mfu"][phase], rel=1e-9)
            assert got["rooftop:mbu", phase] == pytest.approx(acc["mbu"][phase], rel=1e-9)
            assert got["rooftop:tokens_per_s", phase] == pytest.approx(acc["tokens"][phase] / 10.0, rel=1e-9)
        assert got["rooftop:tokens_per_s", "decode"] == pytest.approx(180.0, rel=0.02)  # (181 - 1) × 1 req/s
        assert got["rooftop:mbu", "decode"] > 0.75 and got["rooftop:mfu", "decode"] < 0.05
        total = prom.value(f'rooftop:mfu{{{sel},phase="total"}}', te)
        assert total == pytest.approx(acc["mfu"]["total"], rel=1e-9)
    finally:
        prom.stop()
