"""The watch loop's glue: windows → summaries → JSON lines / human lines / rich table / exporter."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from rich.console import Console

from rooftop.cli.watch_loop import WatchLoop, _table, one_line
from rooftop.errors import TelemetryError
from rooftop.serving.exposition import Snapshot, parse
from tests.serving.test_watch import vllm_text


def scripted(texts: list[str], times: list[float], failing: set[str] = frozenset()) -> Callable[[str], Snapshot]:
    """A fetcher that returns the given expositions in turn (and fails for sources in ``failing``)."""
    feed: Iterator[tuple[str, float]] = iter(zip(texts, times))

    def fetch(src: str) -> Snapshot:
        if src in failing:
            raise TelemetryError(f"{src}: unreachable (refused)")
        text, t = next(feed)
        return parse(text, t, src)

    return fetch


def summary(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "source": "http://e:8000/metrics",
        "engine": "vllm",
        "rates": {"prompt_tokens_per_s": 1234.5, "generation_tokens_per_s": 56.25},
        "mfu": {"total": 0.1234},
        "mbu": {"total": 0.5},
        "latency": {"ttft_s": {"p50": 0.0425, "p99": 0.2}, "tpot_s": {"p50": 0.011}},
        "samples": {"requests_waiting": 3.0, "kv_usage": 0.875},
        "findings": [{"title": "Scheduler/queue-bound: 3 requests waiting"}],
    }
    return {**base, **over}


def test_one_line_formats_every_field() -> None:
    assert one_line(summary()) == (
        "http://e:8000/metrics [vllm] prefill 1,234.5 tok/s, decode 56.2 tok/s, MFU 12.3%, MBU 50.0%, "
        "TTFT p50 42.5 ms, waiting 3.0, KV 87.5% — Scheduler/queue-bound: 3 requests waiting"
    )
    bare = one_line(summary(rates=None, mfu=None, mbu=None, latency={}, samples={}, findings=[]))
    assert bare.count("—") == 8 and bare.endswith("— no finding")  # seven absent values + the separator


def test_table_shows_sources_and_failures() -> None:
    console = Console(width=250, record=True)
    console.print(_table({"http://e:8000/metrics": summary()}, {"http://f:8000/metrics": "unreachable (refused)"}))
    text = console.export_text()
    assert "1,234.5" in text and "42.5 ms / 200 ms" in text and "87.5%" in text
    assert "down" in text and "unreachable (refused)" in text


def test_run_prints_one_json_line_per_window_and_events(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    # polls at t = 0, 2, 4: the third shows lower counters (an engine restart)
    fetch = scripted([vllm_text(100, 50), vllm_text(300, 150), vllm_text(20, 10)], [0.0, 2.0, 4.0])
    out = tmp_path / "run.json"
    loop = WatchLoop(["e"], fetch, None, None, str(tmp_path / "w.jsonl"), None, as_json=True, output=str(out))
    loop.run(0.0, 3)
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    windows = [x for x in lines if "rates" in x]
    events = [x for x in lines if "event" in x]
    assert windows[0]["rates"]["prompt_tokens_per_s"] == 100.0  # (300 − 100) / 2 s
    assert windows[1]["reset"] and windows[1]["rates"]["prompt_tokens_per_s"] == 10.0  # 20 since restart / 2 s
    assert [e["event"] for e in events] == ["reset"]
    assert len(loop.results) == 2
    loop.close()
    assert json.loads(out.read_text())["schema"] == "rooftop.run/1"


def test_without_an_artifact_no_window_is_kept(capsys: pytest.CaptureFixture[str]) -> None:
    # a watch without -o runs for days: 100 endpoints at 1 Hz kept 8.6 million Results a day
    fetch = scripted([vllm_text(100, 50), vllm_text(300, 150), vllm_text(500, 250)], [0.0, 2.0, 4.0])
    loop = WatchLoop(["e"], fetch, None, None, None, None, as_json=True)
    loop.run(0.0, 3)
    assert len(capsys.readouterr().out.splitlines()) == 2 and loop.results == []
    loop.close()


def test_run_plain_lines_and_errors_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    fetch = scripted([vllm_text(100, 50), vllm_text(300, 150)], [0.0, 2.0], failing={"down"})
    loop = WatchLoop(["e", "down"], fetch, None, None, None, None, as_json=False)
    loop.run(0.0, 2)
    captured = capsys.readouterr()
    (line,) = captured.out.splitlines()
    assert line.startswith("e [vllm] prefill 100.0 tok/s, decode 50.0 tok/s")
    # reported, the loop goes on; the source named once (issue 10: "rooftop: down: error down: unreachable")
    assert captured.err.count("rooftop: down: error: unreachable (refused)\n") == 2
    assert loop.errors == {"down": "down: unreachable (refused)"}


def test_once_json_and_nothing_answered(capsys: pytest.CaptureFixture[str]) -> None:
    loop = WatchLoop(["e"], scripted([vllm_text(300, 150)], [10.0]), None, None, None, None, as_json=True)
    loop.once()
    d = json.loads(capsys.readouterr().out)
    assert d["samples"]["generation_tokens"] == 150 and d["rates"] is None
    dead = WatchLoop(["x"], scripted([], [], failing={"x"}), None, None, None, None, as_json=True)
    with pytest.raises(TelemetryError, match="x: unreachable"):
        dead.once()


def test_exporter_serves_up_and_down(capsys: pytest.CaptureFixture[str]) -> None:
    fetch = scripted([vllm_text(100, 50), vllm_text(300, 150)], [0.0, 2.0], failing={"down"})
    loop = WatchLoop(["e", "down"], fetch, None, None, None, "127.0.0.1:0", as_json=True)
    try:
        assert loop.exporter is not None
        loop.run(0.0, 2)
        text = httpx.get(f"http://127.0.0.1:{loop.exporter.port}/metrics", timeout=5).text
    finally:
        loop.close()
    assert 'rooftop_up{phase="",quantile="",source="e"} 1.0' in text
    assert 'rooftop_up{phase="",quantile="",source="down"} 0.0' in text
    assert 'rooftop_tokens_per_second{phase="prefill",quantile="",source="e"} 100.0' in text
    assert "exporting rooftop_* gauges" in capsys.readouterr().err
