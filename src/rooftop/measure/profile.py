"""Profile a real model: warm-up, prefill, N decode steps with a KV cache, under torch.profiler.

Every module's forward runs inside a ``rooftop::mod::<path>`` range (forward hooks), the cache's
``update`` inside ``rooftop::mod::kv_append``, each step inside ``rooftop::step::<phase>::<i>``;
attribution.py turns the saved Chrome trace (open it in Perfetto) into per-operator samples. The
matmul FLOPs of one prefill and one decode step are cross-checked against
``torch.utils.flop_counter.FlopCounterMode`` (which counts matmuls but misses SDPA on CPU).
Ctrl-C keeps the steps already measured: the result says it was interrupted.
"""

from __future__ import annotations

import gzip
import inspect
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec

from rooftop.core.atomic import atomic_path
from rooftop.dtypes import DTYPES
from rooftop.errors import MeasurementError
from rooftop.measure.attribution import MOD, STEP, StepProfile, attribute
from rooftop.measure.model import BuiltModel

Progress = Callable[[str], None]
MATMUL_OPS = ("mm", "addmm", "bmm", "baddbmm")


class ProfileRun(msgspec.Struct):
    """What a profile measured: steps, FLOP cross-check, trace file, warm vs cold, interruption."""

    batch: int
    prompt: int
    decode_steps: int
    steps: list[StepProfile]
    trace_path: str
    flop_check: dict[str, Any] = msgspec.field(default_factory=dict)
    unprofiled_step_s: dict[str, float] = msgspec.field(default_factory=dict)
    cold_step_s: dict[str, float] = msgspec.field(default_factory=dict)
    interrupted: bool = False


def _cache_kwarg(model: Any) -> str:
    """Transformers 5.x calls the cache argument ``cache``; 4.x ``past_key_values``."""
    params = inspect.signature(model.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


def _new_cache(model: Any) -> Any:
    from transformers import DynamicCache

    try:
        return DynamicCache(config=model.config)
    except TypeError:  # transformers 4.x
        return DynamicCache()


@contextmanager
def module_ranges(model: Any) -> Iterator[None]:
    """Wrap every named submodule's forward in a profiler range named after its path."""
    import torch

    handles = []
    open_ranges: dict[int, list[Any]] = {}

    def pre(name: str) -> Callable[..., None]:
        def hook(module: Any, args: Any) -> None:
            rf = torch.profiler.record_function(MOD + name)
            rf.__enter__()  # type: ignore[no-untyped-call]
            open_ranges.setdefault(id(module), []).append(rf)

        return hook

    def post(module: Any, args: Any, output: Any) -> None:
        stack = open_ranges.get(id(module))
        if stack:
            stack.pop().__exit__(None, None, None)

    for name, module in model.named_modules():
        if name:
            handles.append(module.register_forward_pre_hook(pre(name)))
            handles.append(module.register_forward_hook(post))
    try:
        yield
    finally:
        for h in handles:
            h.remove()


def _ranged_cache(cache: Any) -> Any:
    """Wrap ``cache.update`` (where DynamicCache appends K/V with torch.cat) in a kv_append range."""
    import torch

    original = cache.update

    def update(*args: Any, **kwargs: Any) -> Any:
        with torch.profiler.record_function(MOD + "kv_append"):
            return original(*args, **kwargs)

    cache.update = update
    return cache


class Stepper:
    """Runs prefill and decode steps of one batch, keeping the cache between steps."""

    def __init__(self, built: BuiltModel, batch: int, prompt: int, seed: int = 0, context: int | None = None) -> None:
        import torch

        self.model = built.model
        self.device = built.device
        self.kwarg = _cache_kwarg(self.model)
        gen = torch.Generator().manual_seed(seed)
        vocab = int(self.model.config.vocab_size)
        self.prompt_ids = torch.randint(0, vocab, (batch, prompt), generator=gen).to(self.device)
        # decode at a context other than the prompt: an unprofiled prefill of `context` tokens fills the cache
        self.context_ids = (
            torch.randint(0, vocab, (batch, context), generator=gen).to(self.device)
            if context is not None and context != prompt
            else None
        )
        self.cache: Any = None
        self.next_ids: Any = None

    def sync(self) -> None:
        import torch

        if self.device == "cuda":
            torch.cuda.synchronize()

    def prefill(self) -> None:
        import torch

        self.cache = _ranged_cache(_new_cache(self.model))
        with torch.inference_mode():
            out = self.model(input_ids=self.prompt_ids, use_cache=True, logits_to_keep=1, **{self.kwarg: self.cache})
            self.next_ids = out.logits[:, -1:].argmax(-1)
        self.sync()

    def fill(self) -> None:
        """Replace the cache by one of ``context`` tokens (no-op when decode runs at the prompt's length)."""
        if self.context_ids is None:
            return
        ids, self.prompt_ids = self.prompt_ids, self.context_ids
        try:
            self.prefill()
        finally:
            self.prompt_ids = ids

    def decode(self) -> None:
        import torch

        with torch.inference_mode():
            out = self.model(input_ids=self.next_ids, use_cache=True, **{self.kwarg: self.cache})
            self.next_ids = out.logits[:, -1:].argmax(-1)
        self.sync()


def _timed(fn: Callable[[], None]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run_profile(
    built: BuiltModel,
    batch: int,
    prompt: int,
    decode_steps: int,
    trace_path: Path,
    progress: Progress | None = None,
    check_flops: bool = True,
    context: int | None = None,
) -> ProfileRun:
    """Warm up, then profile one prefill and ``decode_steps`` decode steps; attribute the trace.

    Decode runs on the prefill's cache (context = prompt) or, with ``context``, on a cache of that
    many tokens filled by an unprofiled prefill outside every step range.
    """
    import torch

    say = progress or (lambda _m: None)
    stepper = Stepper(built, batch, prompt, context=context)
    run = ProfileRun(batch, prompt, decode_steps, [], str(trace_path))
    try:
        say("warm-up (cold prefill, then warm)")
        run.cold_step_s["prefill"] = _timed(stepper.prefill)
        stepper.fill()
        run.cold_step_s["decode"] = _timed(stepper.decode)
        run.unprofiled_step_s["prefill"] = _timed(stepper.prefill)
        stepper.fill()
        warm = [_timed(stepper.decode) for _ in range(3)]
        run.unprofiled_step_s["decode"] = sorted(warm)[1]
        if check_flops:
            say("FlopCounterMode cross-check")
            run.flop_check = flop_counter_check(stepper)
    except torch.OutOfMemoryError as exc:
        raise MeasurementError(f"out of memory during warm-up: {str(exc).splitlines()[0]}") from exc
    done: set[tuple[str, int]] = set()
    with module_ranges(built.model), torch_profiler(built.device) as prof:
        try:
            say(f"prefill: batch {batch} × {prompt} tokens")
            with torch.profiler.record_function(STEP + "prefill::0"):
                stepper.prefill()
            done.add(("prefill", 0))
            if context is not None and context != prompt:
                say(f"filling the KV cache to {context} tokens (not profiled)")
            stepper.fill()
            for i in range(decode_steps):
                say(f"decode step {i + 1}/{decode_steps}")
                with torch.profiler.record_function(f"{STEP}decode::{i}"):
                    stepper.decode()
                done.add(("decode", i))
        except KeyboardInterrupt:
            run.interrupted = True
    # the trace keeps everything; the step Ctrl-C cut short is not reported as a step
    steps = attribute(save_trace(prof, trace_path), DTYPES[built.dtype].bytes)
    run.steps = [s for s in steps if (s.phase, s.index) in done]
    return run


@contextmanager
def torch_profiler(device: str) -> Iterator[Any]:
    """torch.profiler over CPU (and CUDA) with shapes; Kineto's start/stop notices kept off stderr.

    torch 2.13's Kineto writes ``USDT:… profiler_start`` and ``profiler_stop`` to file descriptor 2
    for every session, a dozen lines per `rooftop profile`; they are dropped, any other line it
    writes while starting or stopping is passed on.
    """
    import torch

    activities = [torch.profiler.ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    prof = torch.profiler.profile(activities=activities, record_shapes=True)
    with _without_kineto_notices():
        prof.__enter__()  # type: ignore[no-untyped-call]
    try:
        yield prof
    finally:
        with _without_kineto_notices():
            prof.__exit__(None, None, None)  # type: ignore[no-untyped-call]


@contextmanager
def _without_kineto_notices() -> Iterator[None]:
    import os
    import sys
    import tempfile

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            kept = [ln for ln in held.read().decode("utf-8", "replace").splitlines(True) if not ln.startswith("USDT:")]
            sys.stderr.write("".join(kept))


def save_trace(prof: Any, path: Path) -> dict[str, Any]:
    """Export the profiler's Chrome trace (gzipped when the name ends in .gz) and return it parsed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = path.with_suffix("") if path.suffix == ".gz" else path
    prof.export_chrome_trace(str(raw))
    data: dict[str, Any] = json.loads(raw.read_text(encoding="utf-8"))
    if path.suffix == ".gz":
        with atomic_path(path, MeasurementError) as tmp, gzip.open(tmp, "wt", encoding="utf-8") as f:
            json.dump(data, f)
        raw.unlink()
    return data


def flop_counter_check(stepper: Stepper) -> dict[str, Any]:
    """Matmul FLOPs of one prefill and one decode step as FlopCounterMode counts them.

    A cross-check, never a reason to lose the profile: when FlopCounterMode itself fails (torch
    2.11 asserted on grouped-query SDPA on CUDA), the phase records the error and the profile goes on.
    """
    from torch.utils.flop_counter import FlopCounterMode

    out: dict[str, Any] = {}
    for phase, fn in (("prefill", stepper.prefill), ("decode", stepper.decode)):
        counter = FlopCounterMode(display=False, custom_mapping=_sdpa_gqa_mapping())
        try:
            with counter:
                fn()
        except (RuntimeError, AssertionError, TypeError, ValueError, NotImplementedError) as exc:
            out[phase] = {"error": f"FlopCounterMode failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"}
        else:
            counts = counter.get_flop_counts().get("Global", {})
            out[phase] = {
                "matmul_flops": float(sum(v for k, v in counts.items() if str(k).split(".")[-1] in MATMUL_OPS)),
                "by_op": {str(k): float(v) for k, v in counts.items()},
            }
        if phase == "prefill":
            stepper.fill()  # outside the counter: decode is counted on the cache it is profiled on
    return out


def sdpa_flops(query: Any, key: Any, value: Any, *_args: Any, **_kwargs: Any) -> int:
    """FlopCounterMode's SDPA convention (two bmm, no causal discount) with fewer KV heads allowed.

    torch 2.13 counts grouped-query attention itself; torch 2.11's formula asserts q heads == k
    heads, which every GQA model (Llama 3, Mistral, Qwen) violates on CUDA's fused kernels.
    """
    b, heads, s_q, d = query
    return int(2 * b * heads * s_q * key[-2] * (d + value[-1]))


def _sdpa_gqa_mapping() -> dict[Any, Any]:
    import torch

    names = (
        "_scaled_dot_product_flash_attention",
        "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_cudnn_attention",
    )
    return {getattr(torch.ops.aten, n): sdpa_flops for n in names if hasattr(torch.ops.aten, n)}
