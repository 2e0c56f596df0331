"""`rooftop rules` inside a real Prometheus, scraping a /metrics stub on 127.0.0.1 whose counters grow steadily.

The stub plays a vLLM serving mixtral-8x7b on an H100 at one request per second, 100 prompt tokens
and 182 generated tokens each, one request running: 181 decode tokens/s at batch 1. Decode then
reads ~25 GB per token (weights of the two experts of each layer plus the attention and shared
weights): decode MBU ≈ 181 × 2.55e10 / 3.35e12 ≈ 1.38 (> 75 %) and decode MFU ≈ 181 × 2.55e10 /
989.4e12 ≈ 0.5 % (< 5 %) — scenario A, whose alert must fire. The recorded series must equal
watch's numbers over the same window (watch's own code on Prometheus's samples).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.serving.prom_proc import Prometheus, needs_prometheus, serve_metrics, watch_accounts

pytestmark = [pytest.mark.slow, needs_prometheus]

REQ_PER_S, PROMPT, OUTPUT = 1.0, 100.0, 182.0  # context 100 + (182 - 2) / 2: no half to round


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


@pytest.fixture
def stub() -> Iterator[str]:
    server = serve_metrics(exposition)
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_scenario_a_fires_and_records_match_watch(stub: str, tmp_path: Path) -> None:
    from rooftop.api.live_model import live_model

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
        # one recorded evaluation at te, and watch's window over the same 10 s: both take two scrapes, the last
        # one at or before te - 10 s and the last one at or before te. Which scrape a rule saw can differ from
        # what a later query sees: a scrape stamped just before te but stored after the evaluation (a slow
        # scrape on a loaded machine) was not there yet. So watch's accounting is made for the last scrape at
        # each end and the one before it, and the recorded values must equal one of these to rounding.
        sel = 'model="mixtral-8x7b",device="h100-sxm"'
        (series,) = prom.query(f'rooftop:mfu{{{sel},phase="decode"}}[5s]')
        te = float(series["values"][-1][0])
        accounts = watch_accounts(prom, "stub", live_model("mixtral-8x7b", "h100-sxm"), te)
        got = {
            (name, phase): prom.value(f'{name}{{{sel},phase="{phase}"}}', te)
            for name in ("rooftop:mfu", "rooftop:mbu", "rooftop:tokens_per_s")
            for phase in ("prefill", "decode")
        }

        def same(acc: dict[str, Any]) -> bool:
            return all(
                got["rooftop:mfu", phase] == pytest.approx(acc["mfu"][phase], rel=1e-9)
                and got["rooftop:mbu", phase] == pytest.approx(acc["mbu"][phase], rel=1e-9)
                and got["rooftop:tokens_per_s", phase] == pytest.approx(acc["tokens"][phase] / 10.0, rel=1e-9)
                for phase in ("prefill", "decode")
            )

        print(f"window ending {te}: rules {got}; watch {[(a['mfu'], a['mbu'], a['tokens']) for a in accounts]}")
        matched = [acc for acc in accounts if same(acc)]
        assert len(accounts) == 4 and matched
        assert got["rooftop:tokens_per_s", "decode"] == pytest.approx(181.0, rel=0.02)  # (182 - 1) × 1 req/s
        assert got["rooftop:mbu", "decode"] > 0.75 and got["rooftop:mfu", "decode"] < 0.05
        total = prom.value(f'rooftop:mfu{{{sel},phase="total"}}', te)
        assert total == pytest.approx(matched[0]["mfu"]["total"], rel=1e-9)
    finally:
        prom.stop()
