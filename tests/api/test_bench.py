"""api/bench.py: load levels against the stub server, with the engine's view beside the client's."""

from __future__ import annotations

import contextlib
import math

import pytest

from rooftop.api.bench import LoadOptions, bench_one, run_levels, served_model_name
from rooftop.core.slo import SLO
from rooftop.errors import TelemetryError
from rooftop.serving.loadgen.arrivals import arrivals
from rooftop.serving.loadgen.prompts import Lengths, synthetic
from rooftop.serving.loadgen.runner import Target
from tests.serving.stub_server import StubServer
from tests.serving.test_watch import vllm_text


def test_served_model_name() -> None:
    stub = StubServer().start()
    try:
        assert served_model_name(stub.url) == "stub-model"
        assert served_model_name(stub.url + "/v1") == "stub-model"
    finally:
        stub.stop()
    with pytest.raises(TelemetryError, match="cannot list served models") as err:
        served_model_name("http://127.0.0.1:9", timeout_s=1)
    assert "--" not in str(err.value)  # the CLI adds its flag name, the library does not


def test_bench_one_puts_the_engine_view_beside_the_client() -> None:
    stub = StubServer(metrics=vllm_text(100, 50)).start()
    target = Target(stub.url, "m")
    reqs = synthetic(4, Lengths(8), Lengths(5))
    try:
        # the "engine" counts 4 × 8 prompt and 4 × 5 generated tokens while the load runs
        done = lambda _rec: setattr(stub, "metrics", vllm_text(132, 70))  # noqa: E731
        level = bench_one(target, reqs, arrivals(4, 100.0), SLO(ttft_s=1.0), None, LoadOptions(10), done, 100.0)
        summary, result, records = level.summary, level.result, level.records
        assert summary.requests == 4 and summary.failed == 0 and len(records) == 4 and level.rate == 100.0
        assert summary.goodput_rps > 0 and summary.output_tokens == 20
        engine = level.engine
        assert engine is not None
        assert engine["engine"] == "vllm" and engine["samples"]["generation_tokens"] == 70
        assert engine["rates"]["generation_tokens_per_s"] > 0  # 20 tokens over the window
        assert result.workload["requests"] == 4 and result.extra["bench"]["completed"] == 4
        stub.mode = "garbage"  # /metrics answers HTML; completions still stream
        level = bench_one(target, reqs, arrivals(4, 100.0), SLO(), None, LoadOptions(10))
        assert level.summary.failed == 0 and level.engine is not None
        assert f"{stub.url}/metrics" in level.engine["error"]
        level = bench_one(target, reqs, arrivals(4, 100.0), SLO(), None, LoadOptions(10, scrape=False))
        assert level.engine is None
    finally:
        stub.stop()


def test_run_levels_rates_sweep_and_strict_json() -> None:
    stub = StubServer().start()
    target = Target(stub.url, "m")
    reqs = synthetic(3, Lengths(8), Lengths(2))
    started: list[tuple[float, int]] = []

    def progress(level: float, total: int) -> contextlib.nullcontext[None]:
        started.append((level, total))
        return contextlib.nullcontext(None)

    try:
        run = run_levels(
            target, reqs, lambda rate: arrivals(3, rate), [50.0, math.inf], SLO(), None,
            LoadOptions(10, scrape=False), {"arrival": "poisson"}, progress,
        )  # fmt: skip
    finally:
        stub.stop()
    assert started == [(50.0, 3), (math.inf, 3)]  # one progress context per level, 3 requests each
    runs = run.runs()
    assert [r["rate"] for r in runs] == [50.0, math.inf] and runs[0]["arrival"] == "poisson"
    assert [r["completed"] for r in runs] == [3, 3] and len(run.records()) == 6  # 2 levels × 3 requests
    doc = run.document()
    assert [r["rate"] for r in doc["runs"]] == [50.0, "inf"]  # strict JSON: no Infinity literal
    assert set(doc["sweep"]) == {"best_goodput_rate", "best_goodput_rps", "knee_rate"}
    art = run.artifact(None, target)
    assert art.command == "bench" and len(art.results) == 2 and art.identity["target"] == target.url


def test_bench_engine_view_counts_triton_client_requests() -> None:
    # The engine's /metrics is the real Triton ensemble dump (tests/data/serving): its request
    # counters are read from the ensemble, or from the model --model-label names; renamed metrics listed.
    from tests.conftest import data_path

    text = data_path("serving", "triton_ensemble_codegen_readme.prom").read_text()
    stub = StubServer(metrics=text).start()
    target = Target(stub.url, "m")
    reqs = synthetic(2, Lengths(8), Lengths(3))
    try:
        level = bench_one(target, reqs, arrivals(2, 100.0), SLO(), None, LoadOptions(10))
        assert level.engine is not None and level.engine["samples"]["inferences"] == 391_768
        assert level.engine["request_models"] == ["ensemble"] and level.engine["renamed"] == []
        picked = LoadOptions(10, model_label="preprocessing")
        level = bench_one(target, reqs, arrivals(2, 100.0), SLO(), None, picked)
        assert level.engine is not None and level.engine["request_models"] == ["preprocessing"]
    finally:
        stub.stop()


def test_run_span_is_at_least_the_schedule():
    from rooftop.api.bench import run_span_s

    # 100 requests at 4 req/s: sends span 99 / 4 = 24.75 s; with 0.2 s requests the first send to
    # the last end is 24.95 s, so 100 / 24.95 = 4.008 req/s would exceed the offered 4.0
    assert run_span_s(24.95, 100, 4.0) == 25.0  # 100 / 4
    assert 100 / run_span_s(24.95, 100, 4.0) == 4.0
    assert run_span_s(31.0, 100, 4.0) == 31.0  # an engine slower than the schedule: the measured span
    assert run_span_s(3.0, 100, math.inf) == 3.0  # rate inf or a trace (nan): the measured span
    assert run_span_s(3.0, 100, math.nan) == 3.0
