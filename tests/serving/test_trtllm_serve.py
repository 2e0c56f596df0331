"""trtllm-serve's /prometheus/metrics read with the trtllm-serve map.

No TensorRT-LLM runs here (it needs a CUDA GPU), so the page is built the way its server builds it:
prometheus_client, with the names, types, labels and buckets TensorRT-LLM's ``MetricsCollector``
declares (NVIDIA/TensorRT-LLM@050f80de, ``tensorrt_llm/metrics/collector.py``; Apache-2.0), after
the calls its OpenAI server makes: ``log_request_metrics_dict`` once per finished request (tokens
and latencies) and ``log_iteration_stats`` per iteration (running, waiting, KV use = used / max
blocks).
"""

from __future__ import annotations

import json

import pytest
import yaml

from rooftop.api.rules import rule_set, rules_yaml
from rooftop.serving.sources import read_file
from rooftop.serving.watch import observe
from tests.fuzz.harness import invoke

prometheus_client = pytest.importorskip("prometheus_client")

E2E = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0]
TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
TPOT = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]


def trtllm_page() -> str:
    """4 finished requests of 1,000 prompt tokens (250 of them cached) and 100 output tokens.

    Iteration stats: 3 running, 1 waiting, 2,048 of 8,192 KV blocks used.
    """
    reg = prometheus_client.CollectorRegistry()
    labels = {"model_name": "llama-3.1-8b", "engine_type": "trtllm"}
    names = list(labels)

    def counter(name: str, extra: tuple[str, ...] = ()) -> prometheus_client.Counter:
        return prometheus_client.Counter(f"trtllm_{name}", name, [*names, *extra], registry=reg)

    def histogram(name: str, buckets: list[float]) -> prometheus_client.Histogram:
        return prometheus_client.Histogram(f"trtllm_{name}", name, names, buckets=buckets, registry=reg)

    success = counter("request_success_total", ("finished_reason",))
    prompt, generation, cached = (
        counter(n) for n in ("prompt_tokens_total", "generation_tokens_total", "prompt_cached_tokens_total")
    )
    ttft, tpot = histogram("time_to_first_token_seconds", TTFT), histogram("time_per_output_token_seconds", TPOT)
    e2e, queue = histogram("e2e_request_latency_seconds", E2E), histogram("request_queue_time_seconds", E2E)
    prefill, decode = histogram("request_prefill_time_seconds", TTFT), histogram("request_decode_time_seconds", E2E)
    for _ in range(4):  # log_request_metrics_dict, one finished request each
        success.labels(**labels, finished_reason="stop").inc()
        prompt.labels(**labels).inc(1000)
        generation.labels(**labels).inc(100)
        cached.labels(**labels).inc(250)
        ttft.labels(**labels).observe(0.12)
        tpot.labels(**labels).observe(0.02)
        e2e.labels(**labels).observe(2.1)
        queue.labels(**labels).observe(0.01)
        prefill.labels(**labels).observe(0.11)
        decode.labels(**labels).observe(1.98)
    gauges = {"num_requests_running": 3, "num_requests_waiting": 1, "kv_cache_utilization": 2048 / 8192}
    for name, value in gauges.items():  # log_iteration_stats
        prometheus_client.Gauge(f"trtllm_{name}", name, names, registry=reg).labels(**labels).set(value)
    return prometheus_client.generate_latest(reg).decode()


def test_trtllm_serve_page_is_detected_and_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "trtllm.prom"
    path.write_text(trtllm_page())
    obs = observe(read_file(path), "trtllm-serve")
    assert obs.engine == "trtllm-serve"
    # 4 requests × 1,000 prompt tokens (cached included), × 250 cached, × 100 generated
    assert obs.scalars["prompt_tokens"] == 4000 and obs.scalars["cached_prompt_tokens"] == 1000
    assert obs.scalars["generation_tokens"] == 400 and obs.scalars["requests_finished"] == 4
    assert obs.scalars["requests_running"] == 3 and obs.scalars["requests_waiting"] == 1
    assert obs.scalars["kv_usage"] == pytest.approx(0.25)  # 2,048 / 8,192 blocks: a fraction, not a percent
    assert obs.histograms["ttft_s"].mean == pytest.approx(0.12)
    assert obs.histograms["tpot_s"].mean == pytest.approx(0.02)
    assert obs.histograms["prefill_s"].mean == pytest.approx(0.11)
    assert obs.histograms["decode_s"].mean == pytest.approx(1.98)
    out = invoke(["watch", str(path), "--once", "--json"])  # detected without --engine
    assert out.code == 0 and json.loads(out.out)["engine"] == "trtllm-serve"


def test_trtllm_serve_gets_utilisation_rules() -> None:
    # with token counters the recording rules compute MFU and MBU (before: capacity rules only)
    doc = yaml.safe_load(rules_yaml([rule_set("llama-3.1-8b", "h100-sxm", "trtllm-serve")]))
    record, _ = doc["groups"]
    by_name = {r["record"]: r["expr"] for r in record["rules"]}
    assert {"rooftop:mfu", "rooftop:mbu"} <= by_name.keys()
    assert "trtllm_generation_tokens_total" in "".join(by_name.values())
    assert "trtllm_prompt_tokens_total" in "".join(by_name.values())
