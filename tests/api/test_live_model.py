"""api/live_model.py: a LiveModel from preset names and roof overrides."""

from __future__ import annotations

from pathlib import Path

from rooftop.api.live_model import live_model


def test_live_model_options(tmp_path: Path) -> None:
    assert live_model(None, "h100-sxm") is None
    live = live_model("llama-3.1-8b", "h100-sxm", "bf16", tp=2, peak="2 TFLOP/s", bandwidth="50 GB/s")
    assert live is not None and live.base.tp == 2
    assert live.roofs.peak("bf16") == 2e12 and live.roofs.bandwidth("hbm") == 50e9
