"""analytic/gemma_blocks.py: Gemma's per-layer inputs, AltUp and LAuReL operators, none for other models."""

from __future__ import annotations

import msgspec

from rooftop.analytic import gemma_blocks
from rooftop.analytic.decompose import _Step
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.models.presets import load_preset

W = Workload(phase=Phase.DECODE, batch=4)


def test_a_model_without_them_has_none() -> None:
    step = _Step(load_preset("llama-3.2-1b"), W)
    assert gemma_blocks.per_layer_inputs(step) == [] and gemma_blocks.altup_laurel(step) == []


def test_altup_and_laurel_operators_by_hand() -> None:
    # llama-3.2-1b's shape (16 layers, hidden 2048) with Gemma 3n's 4 AltUp streams and a LAuReL rank of 64
    spec = msgspec.structs.replace(load_preset("llama-3.2-1b"), altup_inputs=4, laurel_rank=64)
    ops = {op.name: op for op in gemma_blocks.altup_laurel(_Step(spec, W))}
    assert list(ops) == [
        "altup_proj",
        "altup_router_norm",
        "altup_router",
        "altup_pred_coefs",
        "altup_corr_coefs",
        "altup_predict",
        "altup_unembed",
        "laurel_left",
        "laurel_right",
    ]
    assert (ops["altup_proj"].count, ops["altup_router"].count, ops["laurel_left"].count) == (3, 32, 16)
    # LAuReL's left projection: 2 · 4 tokens · 2048 · 64 = 1,048,576 FLOPs per layer
    assert float(ops["laurel_left"].cost.flops) == 2 * 4 * 2048 * 64 == 1_048_576
    # the stream mixing runs once per feature: 4 tokens × 2048 features, each a 4 × 4 product
    assert float(ops["altup_predict"].cost.flops) == 2 * (4 * 2048) * 4 * 4
