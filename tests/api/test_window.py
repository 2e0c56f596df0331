"""api/window.py: a metrics window → live points, totals, findings and the watch JSON."""

from __future__ import annotations

import pytest

from rooftop.api.live import account
from rooftop.api.live_model import LiveModel
from rooftop.api.window import analyse_window, live_run, points, since_start, snapshot_summary, totals
from rooftop.core.points import Phase, Source
from rooftop.serving.exposition import parse
from rooftop.serving.watch import observe
from tests.api.live_fixtures import win
from tests.serving.test_watch import vllm_text


def test_points_and_totals(tiny: LiveModel) -> None:
    w = win({"prompt_tokens": 0, "generation_tokens": 50, "requests_finished": 0})  # decode only
    acc = account(w, tiny)
    (pt,) = points(w, acc, tiny)  # no prefill work in the window: no prefill point
    assert pt.phase is Phase.DECODE and pt.source is Source.LIVE and pt.time_s == 2.0
    assert pt.flops == pytest.approx(acc.flops.decode) and pt.provenance["tokens"] == 50
    tot = totals(w, acc, tiny)
    assert tot.phase == "live" and tot.tokens == 50 and tot.mfu == pytest.approx(acc.mfu.total)


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
