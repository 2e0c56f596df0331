"""Wall time of one decode step at a given batch and context, without the profiler.

The KV cache is filled with random keys and values (no prefill needed: a 32 × 2048 prefill
would take minutes on a CPU), then a few steps are timed and the median kept. Used to check a
calibrated prediction on shapes the calibration never saw.
"""

from __future__ import annotations

import time
from typing import Any

from rooftop.measure.model import BuiltModel
from rooftop.measure.profile import Stepper, _new_cache


def filled_cache(model: Any, batch: int, context: int, dtype: Any, device: str) -> Any:
    """A DynamicCache holding ``context`` random positions per sequence in every layer."""
    import torch

    cfg = model.config
    kv_heads = int(getattr(cfg, "num_key_value_heads", None) or cfg.num_attention_heads)
    head_dim = int(getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads)
    cache = _new_cache(model)
    for layer in range(int(cfg.num_hidden_layers)):
        k = torch.randn(batch, kv_heads, context, head_dim, dtype=dtype, device=device)
        v = torch.randn(batch, kv_heads, context, head_dim, dtype=dtype, device=device)
        cache.update(k, v, layer)
    return cache


def decode_step_s(built: BuiltModel, batch: int, context: int, reps: int = 3) -> float:
    """Median wall time of a decode step (batch × 1 new token, ``context`` cached) over ``reps``."""
    import torch

    stepper = Stepper(built, batch, 1)
    dtype = next(built.model.parameters()).dtype
    stepper.cache = filled_cache(built.model, batch, context, dtype, built.device)
    stepper.next_ids = stepper.prompt_ids[:, :1]
    times = []
    stepper.decode()  # warm
    for _ in range(reps):
        start = time.perf_counter()
        stepper.decode()
        times.append(time.perf_counter() - start)
    del stepper
    if built.device == "cuda":
        torch.cuda.empty_cache()
    return sorted(times)[len(times) // 2]
