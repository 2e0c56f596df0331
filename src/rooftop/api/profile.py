"""Profile entry point: measured points of a real model next to analytic points, on measured roofs.

This is where the measured and analytic sources meet (they never import each other): the
profile's per-operator points sit beside the analytic points for the same workload, computed
against the same *measured* roofs, in one Run with the full identity. The calibration fitted
from the run is stored with the roof cache for ``rooftop analyze --calibrated``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace

from rooftop.analytic.memory import budget
from rooftop.api.analysis import analyze_one
from rooftop.core.artifact import Result, Run
from rooftop.core.enums import Bound
from rooftop.core.points import Phase, RooflinePoint
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.diagnose.engine import Evidence, diagnose
from rooftop.diagnose.evidence.profile import ProfileEvidence
from rooftop.errors import MeasurementError
from rooftop.measure import cache, calibrate, decode_model
from rooftop.measure.points import measured_points, step_summary
from rooftop.measure.roofs import check_device, measure_roofs, resolve_device, torch_threads
from rooftop.models.presets import config_dict, resolve_model
from rooftop.models.spec import ModelSpec

Progress = Callable[[str], None]
DEFAULT_MODEL = "llama-cpu-small"
TRACE_NAME = "rooftop-trace.json.gz"


def default_trace_path(beside: str | Path | None = None) -> Path:
    """Where the torch trace goes when none is named: never the working directory.

    Next to ``beside`` (the run's other output file), named after it (``out/run.json`` ->
    ``out/run-trace.json.gz``); without one, ``rooftop-trace.json.gz`` in the cache folder.
    """
    if beside is None:
        return cache.cache_dir() / TRACE_NAME
    path = Path(beside)
    return path.with_name(f"{path.name.partition('.')[0] or 'rooftop'}-trace.json.gz")


class ProfileRequest(msgspec.Struct, frozen=True):
    """What to profile: model, device, dtype, shapes, threads, where the trace goes."""

    model: str = DEFAULT_MODEL
    device: str = "cpu"
    dtype: str = "fp32"
    batch: int = 1
    prompt: int = 512
    context: int | None = None  # cached tokens at decode; None = the prompt's
    decode_steps: int = 16
    threads: int = 1
    trace_path: Path = msgspec.field(default_factory=default_trace_path)  # the cache folder unless named
    weights: str | None = None
    remeasure_roofs: bool = False
    calibrate: bool = True
    sweep_shapes: tuple[tuple[int, int], ...] | None = None  # (batch, context) of the decode sweep; None = default


def roofs_for(device: str, threads: int, remeasure: bool = False, progress: Progress | None = None) -> Roofs:
    """Cached measured roofs, or a quick measurement (cached) when there are none."""
    roofs = None if remeasure else cache.load_roofs(device, threads)
    if roofs is None:
        if progress:
            progress("no cached roofs for this device: measuring quick roofs first")
        roofs = measure_roofs(device, threads, quick=True, progress=progress)
        cache.save_roofs(roofs, device, threads)
    return roofs


def check_memory(spec: ModelSpec, req: ProfileRequest, roofs: Roofs) -> None:
    """Refuse, with the numbers, a profile whose weights + KV + activations exceed the device."""
    longest = max(req.prompt, req.context or 0) + req.decode_steps
    w = Workload(
        Phase.PREFILL,
        batch=req.batch,
        prompt=longest,
        context=longest,
        weight_dtype=req.dtype,
        act_dtype=req.dtype,
        kv_dtype=req.dtype,
    )
    b = budget(spec, w, roofs.capacity_bytes, memory_utilization=0.9)
    need = b.weights_bytes + float(b.kv_cache_bytes) + float(b.activation_bytes)
    if need > b.usable_bytes:
        raise MeasurementError(
            f"{spec.name} at batch {req.batch} × {longest} tokens in {req.dtype} needs "
            f"{need / 2**30:.1f} GiB (weights {b.weights_bytes / 2**30:.1f}, KV {float(b.kv_cache_bytes) / 2**30:.1f}, "
            f"activations {float(b.activation_bytes) / 2**30:.1f}) but {req.device} has {b.usable_bytes / 2**30:.1f} "
            "GiB usable; lower the batch, prompt or context, or pick a smaller model"
        )


def profile(req: ProfileRequest, progress: Progress | None = None) -> Run:
    """Measure (or load) roofs, profile the model, and return measured + analytic points in one Run."""
    from rooftop.measure.model import build_model
    from rooftop.measure.profile import run_profile

    req = replace(req, device=resolve_device(req.device))
    check_device(req.device)
    say = progress or (lambda _m: None)
    roofs = roofs_for(req.device, req.threads, req.remeasure_roofs, say)
    spec = resolve_model(req.model)
    check_memory(spec, req, roofs)
    config = config_dict(req.model)
    with torch_threads(req.threads):
        say(f"building {spec.name} with {'random weights' if not req.weights else req.weights}")
        built = build_model(config, req.dtype, req.device, req.weights)
        prof = run_profile(built, req.batch, req.prompt, req.decode_steps, req.trace_path, say, context=req.context)
    results = []
    fit_input = []
    for phase in (Phase.PREFILL, Phase.DECODE):
        measured = measured_points(prof.steps, phase.value, req.dtype, roofs)
        if not measured:
            continue
        summary = step_summary(prof.steps, phase.value)
        cached = req.context or req.prompt
        context = cached + max(0, summary["steps"] // 2) if phase is Phase.DECODE else req.prompt
        workload = Workload(
            phase,
            batch=req.batch,
            prompt=req.prompt,
            context=context,
            weight_dtype=req.dtype,
            act_dtype=req.dtype,
            kv_dtype=req.dtype,
        )
        analytic = analyze_one(spec, workload, roofs)
        step_s = prof.unprofiled_step_s.get(phase.value, summary["step_time_s"])  # without profiler overhead
        fit_input.append((phase.value, measured, list(analytic.points), step_s))
        results.append(_result(phase, measured, analytic, summary, prof, roofs))
    identity = _identity(req, spec, built, prof)
    if fit_input and req.calibrate and not prof.interrupted:
        identity["calibration"] = _calibrate(spec, built, req, roofs, fit_input, say)
    return Run(command="profile", roofs=roofs, results=tuple(results), identity=identity)


def _calibrate(
    spec: ModelSpec,
    built: Any,
    req: ProfileRequest,
    roofs: Roofs,
    fit_input: list[tuple[str, list[RooflinePoint], list[RooflinePoint], float]],
    say: Progress,
) -> str:
    """Fit and store the calibration; Ctrl-C here stores nothing but keeps the profile."""
    try:
        say("calibrating: GEMM efficiency vs tokens")
        with torch_threads(req.threads):
            curve = calibrate.gemm_curve(spec.hidden, spec.ffn, roofs, req.device) if req.dtype == "fp32" else {}
            model = fit_decode_model(spec, built, req.dtype, roofs, say, req.sweep_shapes)
    except KeyboardInterrupt:
        return "interrupted: nothing stored"
    calibration = calibrate.fit(fit_input, roofs.bandwidth("hbm"), curve)
    if model:
        calibration["decode_model"] = model
    calibration["model"] = spec.name
    cache.save_calibration(calibration, req.device, req.threads)
    return "stored" + (" with a decode model" if model else "")


def fit_decode_model(
    spec: ModelSpec,
    built: Any,
    dtype: str,
    roofs: Roofs,
    say: Progress,
    shapes: Sequence[tuple[int, int]] | None = None,
) -> dict[str, Any] | None:
    """Time decode at the sweep's shapes that fit in memory and fit the decode model on them.

    None when fewer than three shapes could be measured. The profiled shape itself is left out, so
    that a prediction at it is a check, not a read-back.
    """
    from rooftop.measure.sweep import SHAPES, decode_sweep

    samples = []
    fitting = [(b, c) for b, c in (shapes or SHAPES) if _fits(spec, dtype, b, c, roofs)]
    for shape in decode_sweep(built, fitting, say):
        w = _decode_workload(dtype, shape.batch, shape.context + 3)  # the cache grows during the timed steps
        points = analyze_one(spec, w, roofs).points
        samples.append(decode_model.Sample(points, shape.class_times_s, shape.step_s, shape.profiled_step_s))
    if len(samples) < 3:
        return None
    return decode_model.fit(samples, roofs.peak(dtype), roofs.bandwidth("hbm")).to_dict()  # the cached form


def _decode_workload(dtype: str, batch: int, context: int) -> Workload:
    return Workload(Phase.DECODE, batch=batch, context=context, weight_dtype=dtype, act_dtype=dtype, kv_dtype=dtype)


def _fits(spec: ModelSpec, dtype: str, batch: int, context: int, roofs: Roofs) -> bool:
    b = budget(spec, _decode_workload(dtype, batch, context), roofs.capacity_bytes, memory_utilization=0.9)
    return b.weights_bytes + float(b.kv_cache_bytes) + float(b.activation_bytes) <= b.usable_bytes


def _result(
    phase: Phase, measured: list[RooflinePoint], analytic: Result, summary: dict[str, Any], prof: Any, roofs: Roofs
) -> Result:
    time_s = summary["step_time_s"]
    totals = analytic.totals
    if totals is not None:  # measured step time; MFU/HFU/MBU of the analytic work over it
        scale = totals.time_s / time_s
        totals = replace(
            totals,
            time_s=time_s,
            mfu=totals.mfu * scale,
            hfu=totals.hfu * scale,
            mbu=totals.mbu * scale,
            bound=_measured_bound(measured),
        )
    check = prof.flop_check.get(phase.value, {})
    traced = sum(s.matmul_flops for s in prof.steps if s.phase == phase.value and s.index == 0)
    extra = {
        "profile": {
            **summary,
            "matmul_flops_traced": traced,
            "matmul_flops_flop_counter": check.get("matmul_flops"),
            "flop_counter_ratio": traced / check["matmul_flops"] if check.get("matmul_flops") else None,
            "flop_counter_error": check.get("error"),
            "unprofiled_step_s": prof.unprofiled_step_s.get(phase.value),
            "cold_step_s": prof.cold_step_s.get(phase.value),
            "trace": prof.trace_path,
            "interrupted": prof.interrupted,
            "roof_spread": roofs.identity.get("spread", {}),
        }
    }
    points = tuple(measured) + analytic.points
    findings = diagnose(Evidence(points, roofs, totals, analytic.workload, ProfileEvidence.from_dict(extra["profile"])))
    return Result(
        workload=analytic.workload,
        points=points,
        totals=totals,
        memory=analytic.memory,
        findings=tuple(findings),
        extra=extra,
    )


def _measured_bound(points: list[RooflinePoint]) -> Bound:
    by = {Bound.COMPUTE: 0.0, Bound.MEMORY: 0.0}
    for p in points:
        if p.flops > 0:
            by[p.bound] = by.get(p.bound, 0.0) + (p.time_s or 0.0)
    return max(by, key=lambda k: by[k])


def _identity(req: ProfileRequest, spec: ModelSpec, built: Any, prof: Any) -> dict[str, Any]:
    import torch
    import transformers

    return {
        "source": "measured",
        "model": spec.describe(),
        "device": req.device,
        "dtype": req.dtype,
        "threads": req.threads,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "cuda": torch.version.cuda,
        "weights": built.weights,
        "shapes": {
            "batch": req.batch,
            "prompt": req.prompt,
            "context": req.context or req.prompt,
            "decode_steps": req.decode_steps,
        },
        "warm": "warm (one cold prefill + decode and one warm prefill + 3 decode steps before profiling)",
        "trace": prof.trace_path,
        "interrupted": prof.interrupted,
    }


def profile_batches(req: ProfileRequest, batches: list[int], progress: Progress | None = None) -> Run:
    """Profile each batch size in turn (one trace each) and return one Run holding every result.

    Calibration is fitted once, with the first batch; a Ctrl-C stops the remaining batches and
    keeps what was measured.
    """
    runs: list[Run] = []
    for i, batch in enumerate(batches):
        trace = req.trace_path if len(batches) == 1 else _suffixed(req.trace_path, f"b{batch}")
        run = profile(replace(req, batch=batch, trace_path=trace, calibrate=req.calibrate and i == 0), progress)
        runs.append(run)
        if run.identity.get("interrupted") or str(run.identity.get("calibration", "")).startswith("interrupted"):
            break
    first = runs[0]
    identity = dict(first.identity)
    if len(runs) > 1:
        identity["batches"] = [r.identity.get("shapes", {}).get("batch") for r in runs]
        identity["trace"] = [r.identity.get("trace") for r in runs]
        identity["interrupted"] = any(r.identity.get("interrupted") for r in runs)
    results = tuple(result for run in runs for result in run.results)
    return Run(command="profile", roofs=first.roofs, results=results, identity=identity)


def _suffixed(path: Path, tag: str) -> Path:
    """rooftop-trace.json.gz + 'b16' -> rooftop-trace-b16.json.gz."""
    name = path.name
    stem, dot, rest = name.partition(".")
    return path.with_name(f"{stem}-{tag}{dot}{rest}")
