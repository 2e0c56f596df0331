from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rooftop.core.slo import SLO
from rooftop.errors import WorkloadError
from rooftop.serving.loadgen.arrivals import arrivals, from_trace
from rooftop.serving.loadgen.client import RequestRecord, _event
from rooftop.serving.loadgen.prompts import Lengths, dataset, parse_lengths, synthetic
from rooftop.serving.loadgen.runner import Target, run
from rooftop.serving.loadgen.summary import summarize
from rooftop.serving.loadgen.sweep import analyse
from tests.serving.stub_server import StubServer


@given(st.integers(2, 500), st.floats(0.1, 100), st.floats(0.1, 10), st.sampled_from(["poisson", "gamma", "constant"]))
def test_arrivals_last_offset_is_exactly_n_minus_1_over_rate(n: int, rate: float, b: float, kind: str) -> None:
    t = arrivals(n, rate, kind, b, seed=1)
    assert t[0] == 0.0
    assert np.all(np.diff(t) >= 0)
    assert t[-1] == pytest.approx((n - 1) / rate)  # vLLM-style rescaling: offered load is exact


def test_constant_and_burstiness() -> None:
    assert list(arrivals(4, 2.0, "constant")) == [0.0, 0.5, 1.0, 1.5]
    # burstiness 0.1 (gamma shape 0.1) gives far more variable gaps than Poisson (CV 1) or b=10
    cv = {b: np.std(np.diff(arrivals(2000, 10, "gamma", b, seed=3))) / 0.1 for b in (0.1, 1.0, 10.0)}
    assert cv[0.1] > 2.0 > cv[1.0] > 0.8 > 0.5 > cv[10.0]  # CV = 1/sqrt(b): ~3.2, ~1, ~0.32
    assert list(arrivals(3, math.inf)) == [0, 0, 0]
    with pytest.raises(WorkloadError):
        arrivals(3, 0.0)


def test_trace_file(tmp_path) -> None:
    p = tmp_path / "t.txt"
    p.write_text('10.5\n10.0\n{"timestamp": 12}\n')
    assert list(from_trace(p)) == [0.0, 0.5, 2.0]
    p.write_text("10\nnope\n")
    with pytest.raises(WorkloadError, match=":2"):
        from_trace(p)


def test_lengths_and_prompts(tmp_path) -> None:
    assert parse_lengths("256", "x") == Lengths(256)
    assert parse_lengths("1024:256", "x") == Lengths(1024, 256.0)
    assert parse_lengths("8-16", "x") == Lengths(12, low=8, high=16)
    for bad in ("0", "x", "16-8"):
        with pytest.raises(WorkloadError):
            parse_lengths(bad, "prompt-len")
    reqs = synthetic(5, Lengths(7), Lengths(3))
    assert [len(r.prompt) for r in reqs] == [7] * 5 and all(r.output_len == 3 for r in reqs)
    p = tmp_path / "d.jsonl"
    p.write_text('{"prompt": "hi"}\n{"messages": [{"role": "user", "content": "yo"}], "output_len": 9}\n')
    ds = dataset(p, 3, Lengths(4))
    assert [r.output_len for r in ds] == [4, 9, 4] and ds[2].prompt == "hi"
    p.write_text("{bad\n")
    with pytest.raises(WorkloadError, match=":1"):
        dataset(p, 1, Lengths(4))


def rec(sent: float, chunks: list[float], n: int | None = None, error: str = "") -> RequestRecord:
    r = RequestRecord(0, sent, sent, chunks, output_tokens=n, error=error)
    return r


def test_metric_definitions_by_hand() -> None:
    # sent at 0, chunks at 0.1, 0.2, 0.4 carrying 4 tokens (one chunk held two):
    r = rec(0.0, [0.1, 0.2, 0.4], n=4)
    assert r.ttft_s == pytest.approx(0.1)
    assert r.e2e_s == pytest.approx(0.4)
    assert r.tpot_s == pytest.approx((0.4 - 0.1) / 3)  # (E2E − TTFT)/(n − 1) = 0.3/3
    assert r.itl_s == pytest.approx([0.1, 0.2])  # per chunk gaps
    assert math.isnan(rec(0.0, [0.1], n=1).tpot_s)


@pytest.mark.parametrize(
    ("data", "token"),
    [
        (b'{"choices": [{"index": 0, "text": "Hi"}]}', True),
        # text held back by the detokenizer (a byte-fallback token mid UTF-8 character): still a token
        (b'{"choices": [{"index": 0, "text": ""}]}', True),
        (b'{"choices": [{"index": 0, "delta": {"content": ""}}]}', True),
        (b'{"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "length"}]}', True),
        # vLLM 0.32's last token when the detokenizer holds its text back: a token (E2E ends here)
        (b'{"choices": [{"index": 0, "text": "", "finish_reason": "length"}]}', True),
        (b'{"choices": [{"index": 0, "delta": {"content": null, "reasoning_content": "hm"}}]}', True),
        # a chat role announcement, a chat end marker without content, a usage-only chunk: no token
        (b'{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}', False),
        (b'{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}', False),
        (b'{"choices": [], "usage": {"completion_tokens": 7}}', False),
        (b'{"choices": [{"index": 0, "delta": {"tool_calls": []}}]}', False),
    ],
)
def test_which_chunks_carry_a_token(data: bytes, token: bool) -> None:
    r = RequestRecord(0, 0.0, 0.0)
    assert _event(r, data, 0.25) is True
    assert r.chunk_s == ([0.25] if token else [])


def test_stream_end_and_errors() -> None:
    r = RequestRecord(0, 0.0, 0.0)
    assert _event(r, b"[DONE]", 1.0) is False and r.error == ""
    assert _event(r, b'{"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3}}', 1.0)
    assert (r.prompt_tokens, r.output_tokens) == (5, 3)
    assert _event(r, b"{not json", 1.0) is False and r.error.startswith("bad SSE data")
    r = RequestRecord(0, 0.0, 0.0)
    assert _event(r, b'{"error": {"message": "overloaded"}}', 1.0) is False and "overloaded" in r.error


def test_goodput_counts_failures_in_the_denominator() -> None:
    records = [rec(0.0, [0.1, 0.2], 2), rec(0.0, [0.9, 1.0], 2), rec(0.0, [], error="timeout after 1 s")]
    s = summarize(records, duration_s=2.0, slo=SLO(ttft_s=0.5))
    assert s.requests == 3 and s.failed == 1 and s.completed == 2
    assert s.goodput_rps == pytest.approx(0.5)  # 1 good of 3 sent, over 2 s
    assert s.ttft_s["p50"] == pytest.approx(0.5)  # median of 0.1 and 0.9; the timeout is not a latency
    assert s.errors == {"timeout after 1 s": 1}
    assert s.output_tokens_per_s == pytest.approx(2.0)  # 4 tokens / 2 s
    assert list(s.to_dict())[:3] == ["requests", "completed", "failed"] and s.to_dict()["slo"]["ttft_s"] == 0.5


def test_sweep_knee_and_best_goodput() -> None:
    def s(ttft: float, thr: float, good: float) -> dict:
        return {"ttft_s": {"p50": ttft}, "request_throughput_rps": thr, "goodput_rps": good}

    pts = [(1.0, s(0.1, 1.0, 1.0)), (2.0, s(0.12, 2.0, 1.9)), (4.0, s(0.5, 3.0, 1.2))]
    assert analyse(pts) == {"best_goodput_rate": 2.0, "best_goodput_rps": 1.9, "knee_rate": 4.0}


@pytest.mark.parametrize("chat", [False, True])
def test_against_stub_server(chat: bool) -> None:
    stub = StubServer(token_delay_s=0.001).start()
    try:
        reqs = synthetic(20, Lengths(8), Lengths(5), chat=chat)
        result = run(Target(stub.url, "m", chat=chat), reqs, arrivals(20, 200.0, "poisson"), timeout_s=10)
    finally:
        stub.stop()
    assert stub.requests == 20
    assert all(r.ok for r in result.records), [r.error for r in result.records]
    assert all(r.output_tokens == 5 and len(r.chunk_s) == 5 for r in result.records)
    assert all(r.ttft_s > 0 and r.e2e_s >= r.ttft_s for r in result.records)
    s = summarize(result.records, result.duration_s, SLO())
    assert s.output_tokens_per_s > 0 and s.failed == 0


def test_unreachable_and_hanging_servers_are_recorded_not_raised() -> None:
    stub = StubServer().start()
    stub.mode = "hang"
    try:
        result = run(Target(stub.url, "m"), synthetic(2, Lengths(4), Lengths(2)), arrivals(2, 100.0), timeout_s=0.5)
    finally:
        stub.stop()
    assert [r.error for r in result.records] == ["timeout after 0.5 s"] * 2
    dead = run(Target("http://127.0.0.1:9", "m"), synthetic(1, Lengths(4), Lengths(2)), arrivals(1, 1.0), timeout_s=2)
    assert dead.records[0].error.startswith("unreachable: Cannot connect to host 127.0.0.1:9")
