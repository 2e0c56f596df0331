"""Shared by the live-accounting tests: the tiny Llama of the e2e tests as a LiveModel, and a window.

The model is the tiny Llama of the e2e tests: hidden 128, 2 layers, 2 heads × head_dim 64 (MHA),
MLP 256 (gated), vocab 512, untied, fp32. Per layer the matmul weights are 4·128² (q, k, v, o) +
3·128·256 (gate, up, down) = 163,840 parameters; ×2 layers = 327,680; lm_head 512·128 = 65,536.
"""

from __future__ import annotations

import json

import pytest

from rooftop.api.live_model import LiveModel, live_model
from rooftop.serving.watch import Window
from tests.serving.test_cli_serving import TINY

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
