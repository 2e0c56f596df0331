"""Calibrated analysis: analytic points on the measured roofs, timed with a profile's fitted efficiency.

``rooftop profile`` fits per-operator-class efficiency and stores it with the roof cache; here
the analytic model of any other shape on the same device is timed with it
(``rooftop analyze --calibrated``), and ``heldout_error`` checks predictions against real decode
steps the calibration never saw.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from msgspec.structs import replace

from rooftop.api.analysis import analyze
from rooftop.core.artifact import Result, Run
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.diagnose.engine import Evidence, diagnose
from rooftop.diagnose.evidence.memory import MemoryEvidence
from rooftop.errors import MeasurementError
from rooftop.measure import cache, calibrate
from rooftop.measure.roofs import check_device
from rooftop.models.spec import ModelSpec


def load_calibrated_roofs(device: str, threads: int) -> tuple[Roofs, dict[str, Any]]:
    """The cached measured roofs and calibration of this device, or a clear error."""
    check_device(device)  # cuda without a GPU (or without torch) is one line, not a traceback
    roofs = cache.load_roofs(device, threads)
    calibration = cache.load_calibration(device, threads)
    if roofs is None or not calibration:
        raise MeasurementError(f"no calibration cached for {device} ({threads} thread(s)); profile it first")
    return roofs, calibration


def apply_calibration(result: Result, calibration: dict[str, Any], roofs: Roofs) -> Result:
    """A result whose analytic points and totals carry calibrated times."""
    phase = str(result.workload.get("phase", "decode"))
    points, step_s = calibrate.predict(list(result.points), calibration, phase, roofs.bandwidth("hbm"))
    totals = result.totals
    if totals is not None and step_s > 0:
        scale = totals.time_s / step_s
        totals = replace(totals, time_s=step_s, mfu=totals.mfu * scale, hfu=totals.hfu * scale, mbu=totals.mbu * scale)
    extra = {**result.extra, "calibrated": {"step_time_s": step_s, "from_model": calibration.get("model")}}
    # the findings are drawn again from the calibrated totals, so a table and its findings quote one MFU/MBU
    memory = MemoryEvidence.from_dict(result.memory) if result.memory else None
    evidence = Evidence(tuple(points), roofs, totals, result.workload, memory=memory)
    return replace(result, points=tuple(points), totals=totals, extra=extra, findings=tuple(diagnose(evidence)))


def analyze_calibrated(
    spec: ModelSpec,
    workloads: Sequence[Workload],
    device: str = "cpu",
    threads: int = 1,
    memory_utilization: float = 0.9,
) -> Run:
    """``analyze`` on this device's measured roofs, with calibrated operator and step times."""
    roofs, calibration = load_calibrated_roofs(device, threads)
    run = analyze(spec, roofs, workloads, memory_utilization)
    results = tuple(apply_calibration(r, calibration, roofs) for r in run.results)
    identity = {
        **run.identity,
        "calibration": {"device": device, "threads": threads, "from_model": calibration.get("model")},
    }
    return replace(run, command="analyze --calibrated", results=results, identity=identity)


def heldout_error(
    model: str,
    grid: Sequence[tuple[int, int]],
    device: str = "cpu",
    threads: int = 1,
    dtype: str = "fp32",
    progress: Callable[[str], None] | None = None,
    reps: int = 3,
) -> dict[str, Any]:
    """Measured vs calibrated-predicted decode step time on (batch, context) shapes; median and p90 |error|."""
    from rooftop.measure.model import build_model
    from rooftop.measure.roofs import torch_threads
    from rooftop.measure.steptime import decode_step_s
    from rooftop.models.presets import config_dict, resolve_model

    spec = resolve_model(model)
    roofs, calibration = load_calibrated_roofs(device, threads)
    rows = []
    with torch_threads(threads):
        built = build_model(config_dict(model), dtype, device)
        for batch, context in grid:
            if progress:
                progress(f"decode step at batch {batch}, context {context}")
            measured = decode_step_s(built, batch, context, reps)
            w = Workload(
                Phase.DECODE, batch=batch, context=context, weight_dtype=dtype, act_dtype=dtype, kv_dtype=dtype
            )
            run = analyze(spec, roofs, [w])
            predicted = apply_calibration(run.results[0], calibration, roofs).extra["calibrated"]["step_time_s"]
            roof_s = run.results[0].totals.time_s if run.results[0].totals else float("nan")
            rows.append(
                {
                    "batch": batch,
                    "context": context,
                    "measured_s": measured,
                    "predicted_s": predicted,
                    "roofline_s": roof_s,
                    "error": predicted / measured - 1.0,
                }
            )
    errors = sorted(abs(r["error"]) for r in rows)
    return {"rows": rows, "median_abs_error": statistics.median(errors), "p90_abs_error": _quantile(errors, 0.9)}


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of sorted values (numpy's default)."""
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (pos - lo) * (ordered[hi] - ordered[lo])
