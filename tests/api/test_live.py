"""api/live.py: live accounting of a metrics window (FLOPs, bytes, MFU/MBU per phase), by hand.

The model is the tiny Llama of the e2e tests: hidden 128, 2 layers, 2 heads × head_dim 64 (MHA),
MLP 256 (gated), vocab 512, untied, fp32. Per layer the matmul weights are 4·128² (q, k, v, o) +
3·128·256 (gate, up, down) = 163,840 parameters; ×2 layers = 327,680; lm_head 512·128 = 65,536.
"""

from __future__ import annotations

import pytest

from rooftop.api.live import Tokens, account
from rooftop.api.live_model import LiveModel
from tests.api.live_fixtures import ATTN_PER_PAIR, HBM, LINEAR, LM_HEAD, PEAK_FP32, win


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
    assert acc.tokens == Tokens(prefill=100, decode=110, generated=120, requests=10)
    assert acc.mean_prompt_tokens == 10 and acc.mean_output_tokens == 12
    prefill = 100 * (LINEAR + LM_HEAD / 10 + ATTN_PER_PAIR * 55 / 10)  # 67,409,920
    decode = 110 * (LINEAR + LM_HEAD + ATTN_PER_PAIR * 16)  # 110 × 802,816 = 88,309,760
    assert acc.flops.prefill == pytest.approx(prefill)
    assert acc.flops.decode == pytest.approx(decode)
    assert acc.mfu.total == pytest.approx((prefill + decode) / 2.0 / PEAK_FP32)  # ≈ 1.16e-6
    assert acc.mbu.decode == pytest.approx(110 * tiny.decode(15, 1).useful_bytes / 2.0 / HBM)
    assert acc.cross_check is None and "cross_check" not in acc.to_dict()  # the engine gave no estimated_flops


def test_cached_prompt_tokens_are_not_computed(tiny: LiveModel) -> None:
    deltas = {"prompt_tokens": 100, "cached_prompt_tokens": 40, "generation_tokens": 120, "requests_finished": 10}
    assert account(win(deltas), tiny).tokens.prefill == 60  # 100 − 40 prefix-cache hits
    assert account(win(deltas), tiny, include_cached=False).tokens.prefill == 100


def test_cross_check_against_engine_flops(tiny: LiveModel) -> None:
    # ours in vLLM's convention: 100 × 678,707.2 + 110 × 802,816 = 156,180,480; engine says 1.25× that
    ours = 100 * (LINEAR + LM_HEAD / 10 + ATTN_PER_PAIR * 100 / 10) + 110 * (LINEAR + LM_HEAD + ATTN_PER_PAIR * 16)
    deltas = {"prompt_tokens": 100, "generation_tokens": 120, "requests_finished": 10, "estimated_flops": 1.25 * ours}
    cc = account(win(deltas), tiny).cross_check
    assert cc is not None
    assert cc.ours_engine_convention_flops == pytest.approx(ours)
    assert cc.ratio == pytest.approx(0.8)
    assert cc.engine_mfu == pytest.approx(1.25 * ours / 2.0 / PEAK_FP32)


def test_data_parallel_engines_are_accounted_per_engine(tiny: LiveModel) -> None:
    # Two data-parallel engines behind one endpoint (vLLM engine="0", "1") each ran the window of
    # test_account_by_hand: the endpoint's counters and running requests are twice one engine's, and
    # each engine runs its half on its own GPUs: per-engine MFU/MBU and batch equal one engine's.
    from msgspec.structs import replace

    one = {"prompt_tokens": 100, "generation_tokens": 120, "requests_finished": 10}
    alone = account(win(one, {"requests_running": 3.0}), tiny)
    pair = account(replace(win({k: 2 * v for k, v in one.items()}, {"requests_running": 6.0}), replicas=2), tiny)
    assert pair.batch == alone.batch == 3.0
    assert pair.flops.total == pytest.approx(2 * alone.flops.total)  # the endpoint's work
    assert pair.mfu.total == pytest.approx(alone.mfu.total) and pair.mbu.decode == pytest.approx(alone.mbu.decode)


def test_a_dynamo_frontend_page_since_start_by_hand(tiny: LiveModel) -> None:
    # Dynamo's frontend page (tests/data/serving) against a start with every counter at 0, 10 s before:
    # 33 prompt tokens, 300 generated by 1 request; its first token came out of the prefill: 299 decode tokens
    from rooftop.serving.sources import read_file
    from rooftop.serving.watch import Observation, observe, window
    from tests.conftest import data_path

    page = observe(read_file(data_path("serving", "dynamo_frontend_metrics_examples.prom")), "fe")
    counters = ("prompt_tokens", "generation_tokens", "requests_finished")
    start = Observation("fe", page.time_s - 10.0, "dynamo", dict.fromkeys(counters, 0.0), {})
    acc = account(window(start, page), tiny)
    assert acc.tokens == Tokens(prefill=33, decode=299, generated=300, requests=1)
    assert (acc.mean_prompt_tokens, acc.mean_output_tokens) == (33.0, 300.0)  # the length histograms' means
    # prefill: 33 tokens × (LINEAR + LM_HEAD / 33 + ATTN × 34 / 2) = 33 × 655,360 + 131,072 + 561 × 1,024
    assert acc.flops.prefill == pytest.approx(33 * LINEAR + LM_HEAD + 561 * ATTN_PER_PAIR)  # 22,332,416
    # decode at context 33 + (300 − 2) / 2 = 182, batch 1 (0 running): 299 × (LINEAR + LM_HEAD + ATTN × 183)
    assert acc.flops.decode == pytest.approx(299 * (LINEAR + LM_HEAD + 183 * ATTN_PER_PAIR))  # 291,173,376
    assert acc.mfu.total == pytest.approx((22_332_416 + 291_173_376) / 10.0 / PEAK_FP32)  # ≈ 4.7e-7


def test_a_nim_page_since_start_counts_the_decode_tokens_its_latency_histogram_saw(tiny: LiveModel) -> None:
    # NIM (tests/data/serving): 109 prompt, 174 generated tokens by 5 requests, 1 running; decode tokens
    # 174 − 5 = 169, the count of its per-output-token latency histogram
    from rooftop.serving.sources import read_file
    from rooftop.serving.watch import Observation, observe, window
    from tests.conftest import data_path

    page = observe(read_file(data_path("serving", "nim_llama31_8b_datadog.prom")), "nim")
    counters = ("prompt_tokens", "generation_tokens", "requests_finished")
    start = Observation("nim", page.time_s - 10.0, "nim", dict.fromkeys(counters, 0.0), {})
    acc = account(window(start, page), tiny)
    assert acc.tokens == Tokens(prefill=109, decode=169, generated=174, requests=5)
    assert acc.tokens.decode == page.histograms["itl_s"].count
    assert (acc.mean_prompt_tokens, acc.mean_output_tokens, acc.batch) == (109 / 5, 174 / 5, 1.0)  # 21.8, 34.8
