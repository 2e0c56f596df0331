"""The four /metrics fixtures read through the engine maps give the values in their README."""

from __future__ import annotations

import pytest

from rooftop.errors import TelemetryError
from rooftop.serving.engines import detect, engine_map, engine_maps
from rooftop.serving.exposition import parse
from tests.conftest import data_path


def snap(name: str):
    path = data_path("serving", name)
    return parse(path.read_text(), time_s=0.0, source=str(path))


def test_vllm_live_fixture() -> None:
    s = snap("vllm_cpu_0.32_live.prom")
    m = detect(s)
    assert m.engine == "vllm"
    v = m.scalars(s)
    assert v["prompt_tokens"] == 713
    assert v["generation_tokens"] == 416
    # 13 requests, all finished_reason="length": the success counter sums over the reason labels
    assert v["requests_finished"] == 13
    assert s.total("vllm:request_success_total", {"finished_reason": "length"}) == 13
    for reason in ("stop", "abort", "error"):
        assert s.total("vllm:request_success_total", {"finished_reason": reason}) == 0
    assert v["requests_running"] == 0 and v["requests_waiting"] == 0 and v["kv_usage"] == 0.0
    assert v["estimated_flops"] == pytest.approx(8.62670848e8)
    assert v["estimated_read_bytes"] == pytest.approx(4.36477952e8)
    assert v["estimated_write_bytes"] == pytest.approx(1.570816e7)
    ttft = m.histograms(s)["ttft_s"]
    assert ttft.count == 13
    assert ttft.sum == pytest.approx(3.990330, abs=1e-6)
    assert ttft.mean == pytest.approx(0.3069, abs=1e-4)  # 3.990330 / 13
    assert m.deprecated_in_use(s) == []
    # _created series are dropped; vllm:iteration_tokens_total is a histogram despite its name
    assert not any(x.name.endswith("_created") for x in s.samples)
    assert s.types["vllm:iteration_tokens_total"] == "histogram"


def test_sglang_docs_fixture() -> None:
    s = snap("sglang_production_metrics_docs.prom")
    m = detect(s)
    assert m.engine == "sglang"
    v = m.scalars(s)
    assert v["prompt_tokens"] == 8_128_902
    assert v["generation_tokens"] == 7_557_572
    assert v["requests_running"] == 162
    assert v["requests_waiting"] == 2_826
    assert v["kv_usage"] == pytest.approx(0.28)
    h = m.histograms(s)
    assert h["ttft_s"].count == 11_008
    assert h["ttft_s"].sum == pytest.approx(2_351_897.9, rel=1e-7)
    assert h["ttft_s"].mean == pytest.approx(213.65, abs=0.01)  # 2,351,897.9 / 11,008: a saturated server
    # legacy per-step ITL name is read and reported as deprecated
    assert "itl_s" in h
    assert any("time_per_output_token_seconds" in d for d in m.deprecated_in_use(s))


def test_triton_fixture() -> None:
    s = snap("triton_trtllm_backend_readme.prom")
    m = detect(s)
    assert m.engine == "triton"
    v = m.scalars(s)
    assert v["kv_usage"] == pytest.approx(0.4875)
    assert v["kv_blocks_used"] == 1
    assert v["kv_blocks_free"] == 6239
    assert v["kv_blocks_max"] == 6239
    assert v["kv_tokens_per_block"] == 64
    assert v["requests_finished"] == 0
    assert v["inferences"] == 0


def test_llamacpp_fixture() -> None:
    s = snap("llamacpp_server_live_cpu.prom")
    m = detect(s)
    assert m.engine == "llamacpp"
    v = m.scalars(s)
    assert v["prompt_tokens"] == 395  # excludes the 835 cached tokens
    assert v["cached_prompt_tokens"] == 835
    assert not m.prompt_tokens_include_cached
    assert v["generation_tokens"] == 416
    assert v["requests_running"] == 0
    assert "kv_usage" not in v  # removed from llama.cpp in 2025


def test_vllm_old_names_are_read() -> None:
    text = (
        "# TYPE vllm:gpu_cache_usage_perc gauge\n"
        'vllm:gpu_cache_usage_perc{model_name="m"} 0.5\n'
        "# TYPE vllm:prompt_tokens_total counter\n"
        'vllm:prompt_tokens_total{model_name="m"} 10\n'
    )
    s = parse(text, 0.0)
    m = detect(s)
    assert m.scalars(s)["kv_usage"] == 0.5
    assert m.deprecated_in_use(s) == ["vllm:gpu_cache_usage_perc → vllm:kv_cache_usage_perc (deprecated in 0.9)"]


def test_unknown_engine_is_a_typed_error() -> None:
    s = parse("# TYPE foo counter\nfoo_total 1\n", 0.0, source="http://x/metrics")
    with pytest.raises(TelemetryError, match="http://x/metrics"):
        detect(s)
    with pytest.raises(TelemetryError, match="unknown engine"):
        engine_map("nope")


def test_every_map_is_well_formed() -> None:
    for m in engine_maps():
        assert m.metrics, m.engine
        for spec in m.metrics:
            assert spec.kind in ("counter", "gauge", "histogram")
            assert spec.names
