"""serving/promql + yaml_text: the PromQL text of the rules and the YAML writer (read back by PyYAML)."""

from __future__ import annotations

import pytest
import yaml

from rooftop.errors import WorkloadError
from rooftop.serving.engines import engine_map
from rooftop.serving.promql import (
    CostPoly,
    Scope,
    counter_rate,
    gauge,
    hist_mean,
    num,
    request_models,
    shape_rules,
    window_s,
)
from rooftop.serving.yaml_text import dump


def _spec(engine: str, key: str):  # type: ignore[no-untyped-def]
    return next(m for m in engine_map(engine).metrics if m.key == key)


def test_counter_rate_is_watchs_two_point_rate_with_fallbacks_and_selector() -> None:
    scope = Scope("m", "d", 'job="x"', "2m")
    x, old = 'vllm:prefix_cache_hits_total{job="x"}', 'vllm:gpu_prefix_cache_hits_total{job="x"}'
    new = 'vllm:prompt_tokens_cached_total{job="x"}'
    # (now − 2 m ago) when it did not go down, else the value since the reset; summed per instance; / 120 s
    alts = [f"sum by (job, instance) ((({n} - {n} offset 2m) >= 0) or {n})" for n in (new, x, old)]
    assert counter_rate(scope, _spec("vllm", "cached_prompt_tokens")) == f"({' or '.join(alts)}) / 120.0"


def test_scale_label_match_and_histogram_mean() -> None:
    scope = Scope("m", "d", window="1h30m")
    q = "nv_inference_queue_duration_us"
    # Triton counts queue time in microseconds: 1e-6 scales the whole expression; 1h30m = 5400 s
    assert counter_rate(scope, _spec("triton", "queue_s_total")) == (
        f"1e-06 * ((sum by (job, instance) ((({q} - {q} offset 1h30m) >= 0) or {q})) / 5400.0)"
    )
    assert gauge(scope, _spec("triton", "requests_waiting")) == (
        'sum by (job, instance) (nv_trt_llm_request_metrics{request_type="waiting"})'
    )
    s, c = "sglang:time_to_first_token_seconds_sum", "sglang:time_to_first_token_seconds_count"
    inc = "sum by (job, instance) ((({0} - {0} offset 1h30m) >= 0) or {0})"
    assert hist_mean(scope, _spec("sglang", "ttft_s")) == f"({inc.format(s)} / ({inc.format(c)} > 0))"
    with pytest.raises(WorkloadError, match="not a Prometheus duration"):
        window_s("1m30")


def test_shapes_follow_watch() -> None:
    rules = {r["record"]: r["expr"] for r in shape_rules(engine_map("llamacpp"), Scope("m", "d"))}
    own = '{model="m", device="d"}'
    # llama.cpp has no finished-request counter: decode tokens = generated; mean prompt falls back to 512
    assert rules["rooftop:decode_tokens:rate"] == f"rooftop:generation_tokens:rate{own}"
    assert rules["rooftop:mean_prompt_tokens"] == f"rooftop:prompt_tokens:rate{own} * 0 + 512.0"
    assert rules["rooftop:decode_context"] == (
        f"clamp_min(round(rooftop:mean_prompt_tokens{own} + clamp_min(rooftop:mean_output_tokens{own} - 2, 0) / 2), 0)"
    )
    assert rules["rooftop:decode_batch"].startswith(f"round(clamp_min(rooftop:requests_running{own}, 1))")


def test_numbers_round_trip() -> None:
    for x in (0.1, 1e-06, 90194313216.0, 2.0 / 3.0):
        assert float(num(x)) == x
    assert CostPoly(1.0, 2.0, 3.0).cm == 0.0


def test_yaml_writer_reads_back() -> None:
    long = "sum by (job, instance) (rate(x[1m])) " * 6 + 'and y{a="b \\"q\\" \'s"}'
    doc = {"groups": [{"name": "g:1", "rules": [{"record": "r", "expr": long, "labels": {"k": "é\tx"}}], "e": []}]}
    text = dump(doc)
    assert max(len(line) for line in text.splitlines()) <= 80
    back = yaml.safe_load(text)
    assert back["groups"][0]["rules"][0]["expr"] == long.replace("  ", " ")
    assert back["groups"][0]["rules"][0]["labels"] == {"k": "é\tx"} and back["groups"][0]["e"] == []


def test_alerts_follow_the_live_findings_thresholds() -> None:
    from rooftop.serving.promalerts import AlertTiming, alert_rules

    notes = {"scheduler": {"remedy": "cap the batch"}}
    alerts = alert_rules(engine_map("sglang"), Scope("m", "d"), 4, notes, AlertTiming("3m", "7m"))
    by = {a["alert"]: a for a in alerts}
    own = 'model="m", device="d"'
    assert by["RooftopPrefillComputeBound"]["expr"] == (
        f'rooftop:mfu{{{own}, phase="prefill"}} > 0.45 and ignoring (phase) deriv(rooftop:ttft_s:mean{{{own}}}[7m]) > 0'
    )
    assert by["RooftopUnderutilised"]["labels"]["bottleneck"] == "communication"  # tp = 4
    assert by["RooftopUnderutilisedWithQueue"]["annotations"]["remedy"] == "cap the batch"
    assert by["RooftopKvCachePressure"]["expr"] == f"rooftop:kv_usage{{{own}}} >= 0.9"  # SGLang: no preemptions
    assert {a["for"] for a in alerts} == {"3m"}
    # llama.cpp: no TTFT histogram, so no scenario B
    assert "RooftopPrefillComputeBound" not in {
        a["alert"] for a in alert_rules(engine_map("llamacpp"), Scope("m", "d"), 1, {})
    }


def test_dashboard_panels_read_rooftop_series() -> None:
    from rooftop.serving.grafana import dashboard

    board = dashboard()
    titles = [p["title"] for p in board["panels"]]
    assert titles[:3] == ["MFU", "MBU", "Tokens per second"]
    for p in board["panels"]:
        (target,) = p["targets"]
        assert "rooftop:" in target["expr"] and 'model=~"$model"' in target["expr"]
    assert len({(p["gridPos"]["x"], p["gridPos"]["y"]) for p in board["panels"]}) == len(titles)  # no overlap


def test_triton_request_counters_are_read_from_the_client_facing_model() -> None:
    emap, scope = engine_map("triton"), Scope("m", "d", window="1m")
    m = _spec("triton", "requests_finished")
    # watch's choice, per instance: the ensemble/BLS model, else models that compose none, else all
    assert request_models(emap, m, scope) == (
        'model=~"ensemble|tensorrt_llm_bls"',
        'model!~"preprocessing|postprocessing|tensorrt_llm"',
        "",
    )
    x = 'nv_inference_request_success{model=~"ensemble|tensorrt_llm_bls"}'
    assert counter_rate(scope, m, request_models(emap, m, scope)).startswith(
        f"(sum by (job, instance) ((({x} - {x} offset 1m) >= 0) or {x}) or sum by (job, instance)"
    )
    one = Scope("m", "d", model_label="tensorrt_llm")
    assert request_models(emap, m, one) == ('model="tensorrt_llm"',)
    assert request_models(emap, _spec("triton", "kv_usage"), one) == ("",)  # the backend's gauges: no choice
    assert request_models(engine_map("vllm"), _spec("vllm", "requests_finished"), scope) == ("",)
