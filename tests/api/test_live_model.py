"""api/live_model.py: a LiveModel from preset names and roof overrides."""

from __future__ import annotations

from pathlib import Path

from rooftop.api.live_model import live_model


def test_live_model_options(tmp_path: Path) -> None:
    assert live_model(None, "h100-sxm") is None
    live = live_model("llama-3.1-8b", "h100-sxm", "bf16", tp=2, peak="2 TFLOP/s", bandwidth="50 GB/s")
    assert live is not None and live.base.tp == 2
    assert live.roofs.peak("bf16") == 2e12 and live.roofs.bandwidth("hbm") == 50e9


def test_mean_lengths_round_a_half_up_as_promql_does() -> None:
    # `rooftop rules` rounds the mean context with PromQL's round() (a half up); Python's round() takes a
    # half to even (188.5 -> 188), and the recorded MFU then differed from watch's by one context token
    live = live_model("llama-3.1-8b", "h100-sxm")
    assert live.decode(188.5, 1) == live.decode(189, 1) != live.decode(188, 1)
    assert live.decode(189.5, 1.5) == live.decode(190, 2)
    assert live.prefill(0.4) == live.prefill(1) and live.prefill(2.5) == live.prefill(3)
