"""api/serve.py: live accounting (FLOPs, bytes, MFU/MBU per phase) and the bench/watch glue.

The model is the tiny Llama of the e2e tests: hidden 128, 2 layers, 2 heads × head_dim 64 (MHA),
MLP 256 (gated), vocab 512, untied, fp32. Per layer the matmul weights are 4·128² (q, k, v, o) +
3·128·256 (gate, up, down) = 163,840 parameters; ×2 layers = 327,680; lm_head 512·128 = 65,536.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rooftop.api.serve import (
    LiveModel,
    account,
    analyse_window,
    bench_one,
    live_model,
    live_run,
    points,
    served_model_name,
    since_start,
    snapshot_summary,
    totals,
)
from rooftop.core.points import Phase, Source
from rooftop.core.slo import SLO
from rooftop.errors import TelemetryError
from rooftop.serving.exposition import parse
from rooftop.serving.loadgen.arrivals import arrivals
from rooftop.serving.loadgen.prompts import Lengths, synthetic
from rooftop.serving.loadgen.runner import Target
from rooftop.serving.watch import Window, observe
from tests.serving.stub_server import StubServer
from tests.serving.test_cli_serving import TINY
from tests.serving.test_watch import vllm_text

LINEAR = 2 * 327_680  # FLOPs per token through the layers' matmuls
LM_HEAD = 2 * 65_536  # FLOPs of one lm_head row
ATTN_PER_PAIR = 2 * 2 * 2 * 128  # layers × (QKᵀ + AV) × 2 FLOPs × heads·head_dim
PEAK_FP32 = 67e12  # h100-sxm fp32 roof in the catalog
HBM = 3.35e12


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> LiveModel:
    cfg = tmp_path_factory.mktemp("tiny") / "config.json"
    cfg.write_text(json.dumps(TINY))
    live = live_model(str(cfg), "h100-sxm", "fp32")
    assert live is not None
    return live


def win(deltas: dict[str, float], gauges: dict[str, float] | None = None, seconds: float = 2.0) -> Window:
    return Window("src", "vllm", 100.0, 100.0 + seconds, deltas, gauges or {"requests_running": 1.0}, {}, False)


def test_per_token_costs_by_hand(tiny: LiveModel) -> None:
    # one prompt token: matmuls + one lm_head row + 1 causal pair
    assert tiny.prefill(1).model_flops == LINEAR + LM_HEAD + ATTN_PER_PAIR  # 787,456
    # ten prompt tokens: lm_head once per sequence (1/10 each), 55 causal pairs (vLLM's rectangle: 100)
    p10 = tiny.prefill(10)
    assert p10.model_flops == pytest.approx(LINEAR + LM_HEAD / 10 + ATTN_PER_PAIR * 55 / 10)  # 674,099.2
    assert p10.matmul_flops_full == pytest.approx(LINEAR + LM_HEAD / 10 + ATTN_PER_PAIR * 100 / 10)  # 678,707.2
    # a decode token at context 10 attends to 11 positions (the cache + itself)
    assert tiny.decode(10, 1).model_flops == LINEAR + LM_HEAD + ATTN_PER_PAIR * 11  # 797,696
    # weights 393,856 params (matmuls + lm_head + 5 norms × 128) × 4 B, read once per decode step;
    # a batch of 4 shares that read: per token it costs a quarter, the KV read stays per sequence
    weights = (327_680 + 65_536 + 5 * 128) * 4
    one, four = tiny.decode(10, 1).useful_bytes, tiny.decode(10, 4).useful_bytes
    assert one - four == pytest.approx(weights * 3 / 4)
    assert tiny.decode(10.4, 1.2) is tiny.decode(10, 1)  # rounded shapes share one memo entry


def test_account_by_hand(tiny: LiveModel) -> None:
    # 2 s window: 10 requests finished, 100 prompt tokens (mean prompt 10), 120 generated (mean 12);
    # each request's first token comes out of its prefill: 110 decode tokens at context 10 + (12 − 2)/2 = 15
    acc = account(win({"prompt_tokens": 100, "generation_tokens": 120, "requests_finished": 10}), tiny)
    assert acc["tokens"] == {"prefill": 100, "decode": 110, "generated": 120, "requests": 10}
    assert acc["mean_prompt_tokens"] == 10 and acc["mean_output_tokens"] == 12
    prefill = 100 * (LINEAR + LM_HEAD / 10 + ATTN_PER_PAIR * 55 / 10)  # 67,409,920
    decode = 110 * (LINEAR + LM_HEAD + ATTN_PER_PAIR * 16)  # 110 × 802,816 = 88,309,760
    assert acc["flops"]["prefill"] == pytest.approx(prefill)
    assert acc["flops"]["decode"] == pytest.approx(decode)
    assert acc["mfu"]["total"] == pytest.approx((prefill + decode) / 2.0 / PEAK_FP32)  # ≈ 1.16e-6
    assert acc["mbu"]["decode"] == pytest.approx(110 * tiny.decode(15, 1).useful_bytes / 2.0 / HBM)
    assert "cross_check" not in acc  # the engine exposed no estimated_flops


def test_cached_prompt_tokens_are_not_computed(tiny: LiveModel) -> None:
    deltas = {"prompt_tokens": 100, "cached_prompt_tokens": 40, "generation_tokens": 120, "requests_finished": 10}
    assert account(win(deltas), tiny)["tokens"]["prefill"] == 60  # 100 − 40 prefix-cache hits
    assert account(win(deltas), tiny, include_cached=False)["tokens"]["prefill"] == 100


def test_cross_check_against_engine_flops(tiny: LiveModel) -> None:
    # ours in vLLM's convention: 100 × 678,707.2 + 110 × 802,816 = 156,180,480; engine says 1.25× that
    ours = 100 * (LINEAR + LM_HEAD / 10 + ATTN_PER_PAIR * 100 / 10) + 110 * (LINEAR + LM_HEAD + ATTN_PER_PAIR * 16)
    deltas = {"prompt_tokens": 100, "generation_tokens": 120, "requests_finished": 10, "estimated_flops": 1.25 * ours}
    cc = account(win(deltas), tiny)["cross_check"]
    assert cc["ours_engine_convention_flops"] == pytest.approx(ours)
    assert cc["ratio"] == pytest.approx(0.8)
    assert cc["engine_mfu"] == pytest.approx(1.25 * ours / 2.0 / PEAK_FP32)


def test_points_and_totals(tiny: LiveModel) -> None:
    w = win({"prompt_tokens": 0, "generation_tokens": 50, "requests_finished": 0})  # decode only
    acc = account(w, tiny)
    (pt,) = points(w, acc, tiny)  # no prefill work in the window: no prefill point
    assert pt.phase is Phase.DECODE and pt.source is Source.LIVE and pt.time_s == 2.0
    assert pt.flops == pytest.approx(acc["flops"]["decode"]) and pt.provenance["tokens"] == 50
    tot = totals(w, acc, tiny)
    assert tot.phase == "live" and tot.tokens == 50 and tot.mfu == pytest.approx(acc["mfu"]["total"])


def test_analyse_window_without_and_with_a_model(tiny: LiveModel) -> None:
    w = win(
        {"prompt_tokens": 100, "generation_tokens": 120, "requests_finished": 10},
        {"requests_running": 2.0, "requests_waiting": 3.0},
    )
    summary, result = analyse_window(w, None)  # telemetry only
    assert summary["mfu"] is None and result.points == () and result.totals is None
    assert summary["rates"]["generation_tokens_per_s"] == 60.0  # 120 tokens / 2 s
    assert "live-queue-bound" in [f["code"] for f in summary["findings"]]  # 3 requests waiting
    summary, result = analyse_window(w, tiny)
    # a tiny model on an H100's roofs: MFU ~1e-6 while 2 requests run → scenario D (tp = 1)
    assert {"live-queue-bound", "live-underutilised"} <= {f.code for f in result.findings}
    assert len(result.points) == 2 and result.extra["live"]["accounting"]["batch"] == 2.0
    run = live_run("watch", [result], tiny, {"sources": ["src"]})
    assert run.identity["source"] == "live" and run.results == (result,)


def test_since_start_and_snapshot_summary() -> None:
    obs = observe(parse(vllm_text(300, 150), 50.0, "s"), "s")
    w = since_start(obs)
    assert w.interval_s == 0 and w.deltas["generation_tokens"] == 150 and w.gauges["requests_waiting"] == 0
    summary, _ = analyse_window(w, None)
    d = snapshot_summary(obs.scalars, summary)
    assert {"engine", "samples", "rates", "mfu", "mbu", "findings"} <= set(d)
    assert d["rates"] is None and d["mfu"] is None  # one snapshot: no interval, no rates
    assert d["samples"]["prompt_tokens"] == 300


def test_live_model_options(tmp_path: Path) -> None:
    assert live_model(None, "h100-sxm") is None
    live = live_model("llama-3.1-8b", "h100-sxm", "bf16", tp=2, peak="2 TFLOP/s", bandwidth="50 GB/s")
    assert live is not None and live.base.tp == 2
    assert live.roofs.peak("bf16") == 2e12 and live.roofs.bandwidth("hbm") == 50e9


def test_served_model_name() -> None:
    stub = StubServer().start()
    try:
        assert served_model_name(stub.url) == "stub-model"
        assert served_model_name(stub.url + "/v1") == "stub-model"
    finally:
        stub.stop()
    with pytest.raises(TelemetryError, match="pass --served-model"):
        served_model_name("http://127.0.0.1:9", timeout_s=1)


def test_bench_one_puts_the_engine_view_beside_the_client() -> None:
    stub = StubServer(metrics=vllm_text(100, 50)).start()
    target = Target(stub.url, "m")
    reqs = synthetic(4, Lengths(8), Lengths(5))
    try:
        # the "engine" counts 4 × 8 prompt and 4 × 5 generated tokens while the load runs
        done = lambda _rec: setattr(stub, "metrics", vllm_text(132, 70))  # noqa: E731
        summary, result, records = bench_one(target, reqs, arrivals(4, 100.0), SLO(ttft_s=1.0), None, 10, None, done)
        assert summary["requests"] == 4 and summary["failed"] == 0 and len(records) == 4
        assert summary["goodput_rps"] > 0 and summary["output_tokens"] == 20
        engine = summary["engine"]
        assert engine["engine"] == "vllm" and engine["samples"]["generation_tokens"] == 70
        assert engine["rates"]["generation_tokens_per_s"] > 0  # 20 tokens over the window
        assert result.workload["requests"] == 4 and result.extra["bench"]["completed"] == 4
        stub.mode = "garbage"  # /metrics answers HTML; completions still stream
        summary, _, _ = bench_one(target, reqs, arrivals(4, 100.0), SLO(), None, 10)
        assert summary["failed"] == 0 and f"{stub.url}/metrics" in summary["engine"]["error"]
        summary, _, _ = bench_one(target, reqs, arrivals(4, 100.0), SLO(), None, 10, scrape=False)
        assert summary["engine"] is None
    finally:
        stub.stop()
