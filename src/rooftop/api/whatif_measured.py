"""`rooftop profile --what-if`: the remedies this machine can run, predicted against measured.

Three remedies run here, each timed for real and predicted by the calibrated model that
``rooftop analyze --calibrated`` uses (the calibration the profile just stored, or the cached one):

* decode batch 1 → 8 at the profile's context: tokens/s = batch / step time;
* fp32 → bf16 weights, activations and KV at decode batch 1 (when the profile ran in fp32);
* a chunked prompt: the prompt in chunks of ``chunk`` tokens (each attending to the chunks
  before it) against one prefill step; TTFT, so the "gain" is below 1 (chunking costs the prompt).

Each row gives predicted and measured figures before → after, both speed-ups and the error of
the predicted speed-up (predicted / measured − 1). The measured shapes take turns, round after
round, and the fastest round of each is kept (:func:`interleaved`), so that a shared machine's
drifting load touches before and after alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from rooftop.analytic.chunked import chunk_starts
from rooftop.api.calibrated import analyze_calibrated
from rooftop.api.profile import ProfileRequest
from rooftop.core.artifact import Run
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.models.presets import config_dict, resolve_model

Progress = Callable[[str], None]
TOLERANCE = 0.20  # the prediction is trusted when its speed-up is within 20 % of the measured one


class MeasuredWhatIf(msgspec.Struct, frozen=True):
    """What to run: model, device, threads, dtype, prompt, decode context, chunk, batch factor."""

    model: str
    device: str = "cpu"
    threads: int = 1
    dtype: str = "fp32"
    prompt: int = 512
    context: int = 512
    chunk: int = 128
    batch: int = 8
    reps: int = 5


def _w(phase: Phase, dtype: str, **shape: Any) -> Workload:
    return Workload(phase, weight_dtype=dtype, act_dtype=dtype, kv_dtype=dtype, **shape)


def predicted_steps(req: MeasuredWhatIf) -> dict[str, float]:
    """Calibrated step times of every shape the what-if runs."""
    spec = resolve_model(req.model)
    past, new = chunk_starts(req.prompt, 0, req.chunk)
    shapes = {
        "decode_b1": _w(Phase.DECODE, req.dtype, batch=1, context=req.context),
        "decode_bn": _w(Phase.DECODE, req.dtype, batch=req.batch, context=req.context),
        "decode_bf16": _w(Phase.DECODE, "bf16", batch=1, context=req.context),
        "prefill": _w(Phase.PREFILL, req.dtype, batch=1, prompt=req.prompt),
    }
    for i, (p, n) in enumerate(zip(past, new, strict=True)):
        shapes[f"chunk{i}"] = _w(Phase.PREFILL, req.dtype, batch=1, prompt=int(p + n), cached_prefix=int(p))
    run = analyze_calibrated(spec, list(shapes.values()), req.device, req.threads)
    steps = {name: float(r.extra["calibrated"]["step_time_s"]) for name, r in zip(shapes, run.results, strict=True)}
    steps["chunked"] = sum(v for k, v in steps.items() if k.startswith("chunk"))
    return steps


def _prefill_s(built: Any, prompt: int, chunk: int, reps: int) -> float:
    """Median wall time of a prompt's prefill, in chunks of ``chunk`` tokens (the whole prompt when ≥ it)."""
    import torch
    from transformers import DynamicCache

    from rooftop.measure.profile import Stepper

    stepper = Stepper(built, 1, prompt)  # the prompt's ids and the cache keyword this transformers takes
    times = []
    for _ in range(reps + 1):  # the first run warms up
        cache = DynamicCache()
        start = time.perf_counter()
        with torch.inference_mode():
            for lo in range(0, prompt, chunk):
                ids = stepper.prompt_ids[:, lo : lo + chunk]
                built.model(input_ids=ids, use_cache=True, logits_to_keep=1, **{stepper.kwarg: cache})
        times.append(time.perf_counter() - start)
    return sorted(times[1:])[reps // 2]


def measured_steps(req: MeasuredWhatIf, say: Progress) -> dict[str, float]:
    """Wall times of the same shapes, on this machine."""
    from rooftop.measure.model import build_model
    from rooftop.measure.roofs import torch_threads
    from rooftop.measure.steptime import decode_step_s

    config = config_dict(req.model)
    with torch_threads(req.threads):
        built = build_model(config, req.dtype, req.device)
        other = build_model(config, "bf16", req.device) if req.dtype == "fp32" else None
        timers: dict[str, Callable[[], float]] = {
            "decode_b1": lambda: decode_step_s(built, 1, req.context, 3),
            "decode_bn": lambda: decode_step_s(built, req.batch, req.context, 3),
            "prefill": lambda: _prefill_s(built, req.prompt, req.prompt, 1),
            "chunked": lambda: _prefill_s(built, req.prompt, req.chunk, 1),
        }
        if other is not None:
            timers["decode_bf16"] = lambda: decode_step_s(other, 1, req.context, 3)
        return interleaved(timers, req.reps, say)


def interleaved(timers: dict[str, Callable[[], float]], rounds: int, say: Progress) -> dict[str, float]:
    """The fastest of ``rounds`` rounds per shape, the shapes taking turns in each round.

    On a shared machine the load drifts: taking turns puts before and after under the same load,
    and the fastest round is the one least disturbed by other processes.
    """
    best = dict.fromkeys(timers, float("inf"))
    for i in range(rounds):
        say(f"what-if: round {i + 1} of {rounds}: {', '.join(timers)}")
        for name, timer in timers.items():
            best[name] = min(best[name], timer())
    return best


def _row(
    name: str,
    metric: str,
    before: str,
    after: str,
    scale: tuple[float, float],
    p: dict[str, float],
    m: dict[str, float],
) -> dict[str, Any]:
    """Speed-ups of ``metric`` (tokens/s: batch / step; TTFT: step) predicted and measured."""
    per_before, per_after = scale

    def speedup(steps: dict[str, float]) -> float:
        return (steps[before] / per_before) / (steps[after] / per_after)

    predicted, measured = speedup(p), speedup(m)
    return {
        "remedy": name,
        "metric": metric,
        "predicted_s": [p[before], p[after]],
        "measured_s": [m[before], m[after]],
        "predicted_speedup": predicted,
        "measured_speedup": measured,
        "error": predicted / measured - 1.0,
        "within_tolerance": abs(predicted / measured - 1.0) <= TOLERANCE,
    }


def what_if_measured(req: MeasuredWhatIf, progress: Progress | None = None) -> list[dict[str, Any]]:
    """Predicted against measured speed-up of each remedy this machine can run."""
    say = progress or (lambda _m: None)
    predicted = predicted_steps(req)
    measured = measured_steps(req, say)
    rows = [
        _row(f"decode batch 1 → {req.batch}", "tokens/s", "decode_b1", "decode_bn", (1, req.batch), predicted, measured)
    ]
    if "decode_bf16" in measured:
        note = f"calibrated in {req.dtype}: bf16 is predicted with {req.dtype}'s kernel efficiencies on half the bytes"
        rows.append(
            {
                **_row(
                    "fp32 → bf16 (decode, batch 1)", "tokens/s", "decode_b1", "decode_bf16", (1, 1), predicted, measured
                ),
                "note": note,
            }
        )
    rows.append(_row(f"chunked prompt ({req.chunk} tokens)", "TTFT", "prefill", "chunked", (1, 1), predicted, measured))
    return rows


def attach_measured(run: Run, req: ProfileRequest, progress: Progress | None = None) -> Run:
    """The profile ``run`` with the measured what-if in its last result's ``what_if_measured``."""
    if not run.results:
        return run
    device = str(run.identity.get("device", req.device))
    shapes = run.identity.get("shapes", {})
    what = MeasuredWhatIf(
        model=req.model,
        device=device,
        threads=req.threads,
        dtype=req.dtype,
        prompt=req.prompt,
        context=int(shapes.get("context") or req.context or req.prompt),
    )
    rows = what_if_measured(what, progress)
    last = run.results[-1]
    results = (*run.results[:-1], replace(last, extra={**last.extra, "what_if_measured": rows}))
    return replace(run, results=results)
