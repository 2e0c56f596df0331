"""Decode steps at a few (batch, context) shapes: unprofiled step time and profiled time per class.

The input of the decode model's fit (decode_model.py). Each shape gets a KV cache filled with
random keys and values (steptime.py), one warm step, ``reps`` unprofiled steps (median kept) and
``profiled`` steps under torch.profiler, attributed like the main profile (median per class).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from rooftop.dtypes import DTYPES
from rooftop.measure.attribution import STEP, attribute
from rooftop.measure.model import BuiltModel
from rooftop.measure.profile import Stepper, _ranged_cache, module_ranges, save_trace, torch_profiler
from rooftop.measure.steptime import filled_cache, settle_allocator

# None is a cell of the held-out grid of benchmarks/bench_calibration.py (batch 1, 4, 16, 32 × context
# 128, 512, 2048), nor is the main profile's decode (batch 1 at ~512) used. The two with per-layer K/V
# tensors over 32 MiB run first, before smaller shapes leave freed heap space a 36 MiB tensor could be
# carved from (then it would not fault fresh pages, as it does in a fresh process: steptime.py).
SHAPES = ((12, 3072), (24, 1536), (1, 256), (2, 256), (1, 1536), (8, 256), (2, 1536), (24, 256), (8, 1024), (24, 1024))


class ShapeTimes(msgspec.Struct, frozen=True):
    """Measured decode step at one shape."""

    batch: int
    context: int
    step_s: float  # median of the unprofiled steps
    class_times_s: dict[str, float]  # median over the profiled steps
    profiled_step_s: float  # median of the profiled steps (ops, gaps and the profiler's overhead)


def time_shape(built: BuiltModel, batch: int, context: int, reps: int = 3, profiled: int = 3) -> ShapeTimes:
    """Time decode steps at one shape, then profile ``profiled`` more and attribute them per class."""
    import torch

    settle_allocator()  # the same allocator state as the held-out check (steptime.py)
    stepper = Stepper(built, batch, 1)
    dtype = next(built.model.parameters()).dtype
    stepper.cache = _ranged_cache(filled_cache(built.model, batch, context, dtype, built.device))
    stepper.next_ids = stepper.prompt_ids[:, :1]
    stepper.decode()  # warm
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        stepper.decode()
        times.append(time.perf_counter() - start)
    with module_ranges(built.model), torch_profiler(built.device) as prof:
        for i in range(profiled):
            with torch.profiler.record_function(f"{STEP}decode::{i}"):
                stepper.decode()
    with tempfile.TemporaryDirectory() as tmp:
        steps = attribute(save_trace(prof, Path(tmp) / "sweep.json"), DTYPES[built.dtype].bytes)
    per_class: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(steps))
    for i, step in enumerate(steps):
        for op in step.ops:
            per_class[op.cls][i] += op.time_s
    del stepper
    medians = {cls: statistics.median(times_s) for cls, times_s in per_class.items()}
    profiled_s = statistics.median(step.time_s for step in steps)
    return ShapeTimes(batch, context, statistics.median(times), medians, profiled_s)


def decode_sweep(
    built: BuiltModel, shapes: Sequence[tuple[int, int]] = SHAPES, progress: Callable[[str], None] | None = None
) -> list[ShapeTimes]:
    """``time_shape`` at every (batch, context) of ``shapes``."""
    out = []
    for batch, context in shapes:
        if progress:
            progress(f"calibration sweep: decode at batch {batch}, context {context}")
        out.append(time_shape(built, batch, context))
    return out
