from __future__ import annotations

import gc
import json
import time

import httpx
import pytest

from rooftop.errors import TelemetryError
from rooftop.serving.exporter import parse_address
from rooftop.serving.exposition import parse
from rooftop.serving.histograms import Histogram
from rooftop.serving.rates import increase, rate
from rooftop.serving.watch import JsonlLog, Observation, Watcher, Window, file_or_url, files_or_urls, observe
from tests.serving.stub_server import StubServer


def vllm_text(prompt: float, gen: float, ttft_counts: tuple[float, float] = (1, 2)) -> str:
    return (
        "# TYPE vllm:prompt_tokens_total counter\n"
        f'vllm:prompt_tokens_total{{engine="0",model_name="m"}} {prompt}\n'
        "# TYPE vllm:generation_tokens_total counter\n"
        f'vllm:generation_tokens_total{{engine="0",model_name="m"}} {gen}\n'
        "# TYPE vllm:num_requests_waiting gauge\n"
        'vllm:num_requests_waiting{engine="0",model_name="m"} 0\n'
        "# TYPE vllm:time_to_first_token_seconds histogram\n"
        f'vllm:time_to_first_token_seconds_bucket{{le="0.1",model_name="m"}} {ttft_counts[0]}\n'
        f'vllm:time_to_first_token_seconds_bucket{{le="+Inf",model_name="m"}} {ttft_counts[1]}\n'
        f'vllm:time_to_first_token_seconds_count{{model_name="m"}} {ttft_counts[1]}\n'
        'vllm:time_to_first_token_seconds_sum{model_name="m"} 0.3\n'
    )


def test_increase_with_reset() -> None:
    # 10 → 30 (+20), restart → 5 (+5 since the restart), → 8 (+3)
    assert increase([10, 30, 5, 8]) == (28, 1)
    r = rate(100, 40, 2.0)
    assert r.reset and r.delta == 40 and r.per_s == 20


def test_histogram_quantiles_by_hand() -> None:
    # 10 observations: 4 ≤ 0.1, 9 ≤ 0.5, 10 ≤ +Inf
    h = Histogram.of(((0.1, 4), (0.5, 9), (float("inf"), 10)), 2.0, 10)
    assert h.quantile(0.2) == pytest.approx(0.05)  # rank 2 of 4 in [0, 0.1]
    assert h.quantile(0.5) == pytest.approx(0.1 + 0.4 * (5 - 4) / 5)  # rank 5 in (0.1, 0.5]: 0.18
    assert h.quantile(0.99) == 0.5  # +Inf bucket answers the last finite edge
    older = Histogram.of(((0.1, 1), (0.5, 2), (float("inf"), 2)), 0.5, 2)
    assert h.minus(older) == Histogram.of(((0.1, 3), (0.5, 7), (float("inf"), 8)), 1.5, 8)
    assert h.minus(Histogram.of(((0.1, 50), (0.5, 50), (float("inf"), 50)), 9, 50)) is h  # restart: whole


def test_watch_windows_rates_and_resume(tmp_path) -> None:
    texts = iter([vllm_text(100, 50), vllm_text(300, 150, (3, 5)), vllm_text(20, 10)])
    times = iter([0.0, 2.0, 4.0])
    log = JsonlLog(tmp_path / "w.jsonl")
    w = Watcher(["src"], lambda _s: parse(next(texts), next(times), "src"), log)
    assert w.poll() == []
    (win,) = w.poll()
    assert win.per_s("prompt_tokens") == 100.0  # (300 − 100) / 2 s
    assert win.per_s("generation_tokens") == 50.0
    assert win.histograms["ttft_s"].count == 3  # 5 − 2 observations inside the window
    (win2,) = w.poll()
    assert win2.reset and win2.deltas["prompt_tokens"] == 20  # restart: counted from zero, never negative
    records = log.read()
    assert [r.get("event") for r in records] == [None, None, None, "reset"]
    # a new watcher resumes from the last observation in the log (inf bucket edges survive JSON)
    w2 = Watcher(["src"], lambda _s: parse(vllm_text(30, 12), 6.0, "src"), log)
    assert w2.state["src"].last.time_s == 4.0
    (win3,) = w2.poll()
    assert win3.deltas["prompt_tokens"] == 10


def test_hanging_and_garbage_endpoints_are_reported_with_url(tmp_path) -> None:
    stub = StubServer(metrics=vllm_text(1, 1)).start()
    try:
        w = Watcher([stub.url], lambda s: file_or_url(s, 0.5), JsonlLog(tmp_path / "l.jsonl"))
        w.poll()
        stub.mode = "garbage"
        assert w.poll() == []
        err = w.state[stub.url].last_error
        assert (f"{stub.url}/metrics" in err and "no samples" in err) or "not Prometheus" in err
        stub.mode = "hang"
        assert w.poll() == []
        assert "hanging" in w.state[stub.url].last_error and stub.url in w.state[stub.url].last_error
        stub.mode = "ok"
        stub.metrics = vllm_text(5, 5)
        (win,) = w.poll()
        assert win.deltas["prompt_tokens"] == 4
        events = [json.loads(x) for x in (tmp_path / "l.jsonl").read_text().splitlines() if "event" in x]
        assert [e["event"] for e in events] == ["error", "error", "gap"]
    finally:
        stub.stop()


def test_observation_roundtrip() -> None:
    obs = observe(parse(vllm_text(1, 2), 5.0, "s"), "s")
    back = Observation.from_json(json.loads(json.dumps(obs.to_json())))
    assert back.histograms == obs.histograms and back.scalars == obs.scalars


def test_bad_sources() -> None:
    with pytest.raises(TelemetryError, match="neither"):
        file_or_url("nope.prom", 1.0)
    with pytest.raises(TelemetryError, match="loopback"):
        parse_address("0.0.0.0:9109")
    assert parse_address("127.0.0.1:9109") == ("127.0.0.1", 9109)


def test_up_and_staleness_as_prometheus(tmp_path) -> None:
    from rooftop.cli.watch_loop import WatchLoop
    from rooftop.serving.watch import STALE_AFTER_S

    texts = {
        "a": [vllm_text(10, 5), vllm_text(30, 15), vllm_text(50, 25)],
        "b": [vllm_text(1, 1), vllm_text(2, 2), "<html>down</html>"],
    }

    def fetch(src: str):  # type: ignore[no-untyped-def]
        return parse(texts[src].pop(0), time.time(), src)

    loop = WatchLoop(["a", "b"], fetch, None, None, None, "127.0.0.1:0", True)
    try:
        loop._handle(loop.watcher.poll())
        loop._handle(loop.watcher.poll())
        st = loop.watcher.state
        assert st["a"].up and st["b"].up and st["a"].scrape_duration_s >= 0 and "b" in loop.latest
        assert 'source="b"' in httpx.get(f"http://127.0.0.1:{loop.exporter.port}/metrics", timeout=5).text
        loop._handle(loop.watcher.poll())  # a answers, b fails
        assert st["a"].up and not st["b"].up
        assert not st["a"].stale(time.time()) and st["b"].stale(time.time())
        assert st["a"].stale(time.time() + STALE_AFTER_S + 1)  # unseen for longer than the lookback
        assert loop.latest["a"]["up"] == 1 and "b" not in loop.latest
        exported = httpx.get(f"http://127.0.0.1:{loop.exporter.port}/metrics", timeout=5).text
        assert 'rooftop_up{phase="",quantile="",source="a"} 1.0' in exported
        assert 'rooftop_up{phase="",quantile="",source="b"} 0.0' in exported
        assert 'source="a"' in exported.split("rooftop_tokens_per_second")[-1]
        assert not any('source="b"' in ln for ln in exported.splitlines() if not ln.startswith("rooftop_up"))
    finally:
        loop.close()


def test_a_watch_polls_under_the_raised_threshold() -> None:
    seen = []

    class Probe(Watcher):
        def poll(self) -> list[Window]:
            seen.append(gc.get_threshold()[0])
            return []

    watcher = Probe(["x"], fetch=lambda _src: (_ for _ in ()).throw(AssertionError("not polled")))
    watcher.run(0.0, lambda _windows: None, polls=2)
    assert seen == [50_000, 50_000] and gc.get_threshold()[0] != 50_000


def test_sources_are_scraped_at_once_so_hanging_ones_cost_one_timeout() -> None:
    # four endpoints accept a connection and never answer; scraped one after the other, a poll took
    # 4 x 0.5 s and held every other source's window back with it (as Prometheus, each target's
    # scrape is on its own)
    import socket

    stub = StubServer(metrics=vllm_text(1, 1)).start()
    hangs = [socket.create_server(("127.0.0.1", 0), backlog=8) for _ in range(4)]
    urls = [stub.url, *(f"http://127.0.0.1:{s.getsockname()[1]}" for s in hangs)]
    w = Watcher(urls, lambda s: file_or_url(s, 0.5))
    w.many = lambda srcs, wanted: files_or_urls(srcs, wanted, 0.5)  # as `rooftop watch` sets it
    try:
        started = time.monotonic()
        w.poll()
        took = time.monotonic() - started
        assert w.state[stub.url].up and w.state[stub.url].last is not None
        assert all("hanging endpoint" in w.state[u].last_error for u in urls[1:])
        assert took < 1.5, f"{took:.2f} s: the hanging endpoints were waited for one after another"
        stub.metrics = vllm_text(5, 5)
        (win,) = w.poll()
        assert win.source == stub.url and win.deltas["prompt_tokens"] == 4
    finally:
        stub.stop()
        for s in hangs:
            s.close()


def test_sources_sharing_an_origin_are_scraped_together() -> None:
    stub = StubServer(metrics=vllm_text(1, 1)).start()
    urls = [f"{stub.url}/metrics", f"{stub.url}/metrics/other", f"{stub.url}/metrics"]  # one given twice
    w = Watcher(urls, lambda s: file_or_url(s, 5.0))
    w.many = lambda srcs, wanted: files_or_urls(srcs, wanted, 5.0)
    try:
        for _ in range(5):
            w.poll()
            assert all(w.state[u].up for u in urls), [w.state[u].last_error for u in urls]
    finally:
        stub.stop()
