"""LMDeploy's /metrics (``lmdeploy serve api_server --metrics``) read with the lmdeploy map.

No LMDeploy runs here (it needs its own torch and a GPU build), so the page is built the way its
server builds it: prometheus_client, with the names, types, labels and buckets its
``PrometheusStatLogger`` declares (InternLM/lmdeploy@7c8d16f5, ``lmdeploy/metrics/loggers.py``;
Apache-2.0), for two data-parallel ranks (``engine="0"``, ``"1"``) after some requests.
"""

from __future__ import annotations

import json

import pytest

from rooftop.serving.engines import engine_maps
from rooftop.serving.sources import read_file
from rooftop.serving.watch import observe
from tests.fuzz.harness import invoke

prometheus_client = pytest.importorskip("prometheus_client")

LATENCY = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0]


def lmdeploy_page() -> str:
    """Rank 0: 3 requests of 100 prompt and 20 generated tokens; rank 1: 1 request of 50 and 10."""
    reg = prometheus_client.CollectorRegistry()
    labels = ["model_name", "engine"]
    gauge = {
        name: prometheus_client.Gauge(f"lmdeploy:{name}", name, labels, registry=reg)
        for name in ("num_requests_running", "num_requests_waiting", "gpu_cache_usage_perc")
    }
    counter = {
        name: prometheus_client.Counter(f"lmdeploy:{name}", name, labels, registry=reg)
        for name in ("prompt_tokens", "generation_tokens")
    }
    success = prometheus_client.Counter("lmdeploy:request_success", "ok", [*labels, "finished_reason"], registry=reg)
    hist = {
        name: prometheus_client.Histogram(f"lmdeploy:{name}", name, labels, buckets=LATENCY, registry=reg)
        for name in ("time_to_first_token_seconds", "iter_token_latency", "e2e_request_latency_seconds")
    }
    for rank, (requests, prompt, out, running, kv) in enumerate([(3, 100, 20, 2, 0.25), (1, 50, 10, 1, 0.75)]):
        model = ("internlm2_5-7b-chat", str(rank))
        gauge["num_requests_running"].labels(*model).set(running)
        gauge["num_requests_waiting"].labels(*model).set(0)
        gauge["gpu_cache_usage_perc"].labels(*model).set(kv)
        counter["prompt_tokens"].labels(*model).inc(requests * prompt)
        counter["generation_tokens"].labels(*model).inc(requests * out)
        success.labels(*model, "ResponseType.FINISH").inc(requests)
        for _ in range(requests):
            hist["time_to_first_token_seconds"].labels(*model).observe(0.4)
            hist["e2e_request_latency_seconds"].labels(*model).observe(2.0)
            for _ in range(out - 1):
                hist["iter_token_latency"].labels(*model).observe(0.05)
    return prometheus_client.generate_latest(reg).decode()


def test_lmdeploy_page_is_detected_and_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "lmdeploy.prom"
    path.write_text(lmdeploy_page())
    obs = observe(read_file(path), "lmdeploy")
    assert obs.engine == "lmdeploy"
    # counters summed over the two ranks: 3 × 100 + 50 prompt, 3 × 20 + 10 generated, 4 requests
    assert obs.scalars["prompt_tokens"] == 350 and obs.scalars["generation_tokens"] == 70
    assert obs.scalars["requests_finished"] == 4 and obs.scalars["requests_running"] == 3
    assert obs.scalars["kv_usage"] == pytest.approx(0.5)  # the ranks' mean, not their sum
    assert obs.replicas == 2  # engine="0", "1": MFU/MBU over two engines' roofs
    assert obs.histograms["ttft_s"].mean == pytest.approx(0.4)
    assert obs.histograms["itl_s"].mean == pytest.approx(0.05)  # 3 × 19 + 9 gaps of 50 ms
    out = invoke(["watch", str(path), "--once", "--json"])
    assert out.code == 0 and json.loads(out.out)["engine"] == "lmdeploy"
    assert "lmdeploy" in {m.engine for m in engine_maps()}
