"""Wall time of one decode step at a given batch and context, without the profiler.

The KV cache is filled with random keys and values (no prefill needed: a 32 × 2048 prefill
would take minutes on a CPU), then a few steps are timed and the median kept. Used to check a
calibrated prediction on shapes the calibration never saw.

Before each shape the allocator is settled (``settle_allocator``): transformers' DynamicCache
grows every K/V tensor by one token per step with ``torch.cat``, and glibc serves a block from
fresh, page-faulting memory whenever it is larger than its mmap threshold, a threshold that only
rises when such a block is freed (up to 32 MiB). Left alone, the cost of a step therefore depends
on which shapes the process ran before: up to 7× for the KV copy. Freeing one block just under
32 MiB first puts the threshold where any process that has run a long prefill has it: tensors
below it are reused from the heap, tensors above it fault fresh pages every step
(decode_model.FRESH_PAGES_BYTES). The same state for every shape, for the fit and the check alike.
"""

from __future__ import annotations

import time
from typing import Any

from rooftop.measure.model import BuiltModel
from rooftop.measure.profile import Stepper, _new_cache

SETTLE_BYTES = 32 * 2**20 - 4096  # just under glibc's DEFAULT_MMAP_THRESHOLD_MAX, header included


def settle_allocator() -> None:
    """Free one block just under 32 MiB (glibc raises its mmap threshold to it), then trim the heap.

    Trimming returns the free heap to the kernel, so a tensor of 32 MiB or more can no longer be
    carved from space an earlier, larger shape left behind: it is mmap'ed with fresh pages, as in a
    process that never ran anything larger. Without glibc (macOS, musl) only the free happens.
    """
    import torch

    block = torch.empty(SETTLE_BYTES // 4, dtype=torch.float32)
    del block
    _malloc_trim()


def _malloc_trim() -> None:
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        trim = getattr(libc, "malloc_trim", None)
    except OSError:
        return
    if trim is not None:
        trim(0)


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

    settle_allocator()
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
