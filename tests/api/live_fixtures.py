"""Shared by the live-accounting tests: the tiny model's FLOPs by hand, and a window (the model: conftest.py).

The model is the tiny Llama of the e2e tests: hidden 128, 2 layers, 2 heads × head_dim 64 (MHA),
MLP 256 (gated), vocab 512, untied, fp32. Per layer the matmul weights are 4·128² (q, k, v, o) +
3·128·256 (gate, up, down) = 163,840 parameters; ×2 layers = 327,680; lm_head 512·128 = 65,536.
"""

from __future__ import annotations

from rooftop.serving.watch import Window

LINEAR = 2 * 327_680  # FLOPs per token through the layers' matmuls
LM_HEAD = 2 * 65_536  # FLOPs of one lm_head row
ATTN_PER_PAIR = 2 * 2 * 2 * 128  # layers × (QKᵀ + AV) × 2 FLOPs × heads·head_dim
PEAK_FP32 = 67e12  # h100-sxm fp32 roof in the catalog
HBM = 3.35e12


def win(deltas: dict[str, float], gauges: dict[str, float] | None = None, seconds: float = 2.0) -> Window:
    return Window("src", "vllm", 100.0, 100.0 + seconds, deltas, gauges or {"requests_running": 1.0}, {}, False)
