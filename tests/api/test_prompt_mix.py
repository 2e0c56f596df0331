"""Live FLOPs with mixed prompt lengths (api/prompt_mix.py): bench sums per request, watch bounds.

Tiny Llama (tests/api/live_fixtures.py): one prompt of p tokens costs, in our convention (causal
pairs), f(p) = p·LINEAR + LM_HEAD + ATTN·p(p+1)/2; in vLLM's (full rectangle) p·LINEAR + LM_HEAD + ATTN·p².
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from rooftop.api.live import account
from rooftop.api.live_model import LiveModel
from rooftop.api.prompt_mix import PromptMix, bounds
from rooftop.api.window import since_start
from rooftop.serving.exposition import parse
from rooftop.serving.watch import observe
from tests.api.live_fixtures import ATTN_PER_PAIR, LINEAR, LM_HEAD, win
from tests.conftest import data_path


def f(p: float) -> float:
    return p * LINEAR + LM_HEAD + ATTN_PER_PAIR * p * (p + 1) / 2


def f_full(p: float) -> float:
    return p * LINEAR + LM_HEAD + ATTN_PER_PAIR * p * p


@dataclass
class Rec:
    prompt_tokens: int
    output_tokens: int
    cached_tokens: int | None = None
    ok: bool = True

    @property
    def n_tokens(self) -> int:
        return self.output_tokens


def test_bench_sums_prefill_per_request(tiny: LiveModel) -> None:
    # The mix: prompts of 32..480 tokens (57 requests, step 8), 1 output token each (no decode).
    prompts = list(range(32, 481, 8))
    mix = PromptMix.from_records([Rec(p, 1) for p in prompts])
    assert mix is not None
    deltas = {"prompt_tokens": sum(prompts), "generation_tokens": len(prompts), "requests_finished": len(prompts)}
    exact = sum(f(p) for p in prompts)  # 11,996,102,656: the per-request sum, by hand
    mean = sum(prompts) / len(prompts)  # 256 tokens
    by_mean = account(win(deltas), tiny)
    assert by_mean.flops.prefill == pytest.approx(len(prompts) * f(mean))  # 11,490,557,952
    assert by_mean.flops.prefill / exact == pytest.approx(0.9579, abs=1e-4)  # 4.2 % low: Jensen
    per_request = account(win(deltas), tiny, mix=mix)
    assert per_request.flops.prefill == pytest.approx(exact)
    assert per_request.prompt_mix == "per request" and per_request.prefill_flops_bounds is None


def test_bench_decode_context_is_token_weighted(tiny: LiveModel) -> None:
    # Two requests: p=10 with 11 output tokens (10 decode tokens at contexts 10..19, mean 14.5) and
    # p=100 with 2 (1 decode token at context 100): token-weighted mean (10·14.5 + 100)/11 = 22.27,
    # where the request means give 55 + (6.5 − 2)/2 = 57.25.
    mix = PromptMix.from_records([Rec(10, 11), Rec(100, 2)])
    assert mix is not None and mix.decode_context() == pytest.approx((10 * 14.5 + 100) / 11)
    deltas = {"prompt_tokens": 110, "generation_tokens": 13, "requests_finished": 2}
    acc = account(win(deltas), tiny, mix=mix)
    assert acc.flops.decode == pytest.approx(11 * tiny.decode(22, 1).model_flops)


def test_watch_bounds_on_the_vllm_fixture(tiny: LiveModel) -> None:
    # vllm_cpu_0.32_live.prom: 13 prompts, 713 tokens (mean 54.85); buckets: 4 in (20, 50], 8 in
    # (50, 100], 1 in (100, 200]. Our mean-length value is the Jensen lower bound; the histogram's
    # upper edges give the upper bound.
    snap = parse(data_path("serving", "vllm_cpu_0.32_live.prom").read_text(), 0.0, "fixture")
    acc = account(since_start(observe(snap, "fixture")), tiny)
    low, high = acc.prefill_flops_bounds or (None, None)
    assert high == pytest.approx(4 * f(50) + 8 * f(100) + f(200))  # 855,310,336
    assert low == pytest.approx(acc.flops.prefill) and acc.prompt_mix == "mean length"
    # vLLM's own counter (full-rectangle convention) is 7,312,030 above our mean-length recount:
    # that excess is ATTN·Σ(p − mean)² in vLLM's convention, half of it in ours (causal pairs), so
    # the true prefill FLOPs in our convention lie inside the bounds.
    cc = acc.cross_check
    assert cc is not None and cc.engine_flops == 862_670_848
    truth = acc.flops.prefill + (cc.engine_flops - cc.ours_engine_convention_flops) / 2
    assert low < truth < high


def test_bounds_by_hand_and_edge_cases(tiny: LiveModel) -> None:
    @dataclass
    class Hist:
        buckets: tuple[tuple[float, float], ...]
        sum: float
        count: float

    h = Hist(((10.0, 2.0), (20.0, 3.0), (float("inf"), 4.0)), 60.0, 4.0)
    low, high = bounds(tiny.prefill, h) or (0.0, 0.0)
    assert low == pytest.approx(max(4 * f(15), 2 * f(1) + f(11) + f(21)))
    assert high == float("inf")  # a prompt in the +Inf bucket: no finite upper bound
    assert bounds(tiny.prefill, Hist((), 0.0, 0.0)) is None
    assert PromptMix.from_records([Rec(0, 3)]) is None
    assert f_full(10) - f(10) == ATTN_PER_PAIR * 45  # 100 rectangle cells against 55 causal pairs


def test_watch_json_carries_the_bounds(tmp_path) -> None:
    import json

    from tests.conftest import run_cli
    from tests.serving.test_cli_serving import TINY

    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(TINY))
    path = str(data_path("serving", "vllm_cpu_0.32_live.prom"))
    out = run_cli("watch", path, "--once", "--json", "--model", str(cfg), "--dtype", "fp32")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["prompt_mix"] == "mean length"
    assert doc["prefill_flops_bounds"][1] == pytest.approx(4 * f(50) + 8 * f(100) + f(200))
