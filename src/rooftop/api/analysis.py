"""Analytic entry point: a model and workloads on a device -> a Run with points, totals, findings.

``analyze`` is the analytic entry point; later sources (measure, ingest, serving) add theirs
beside it. Each returns a :class:`rooftop.core.artifact.Run`.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from msgspec.structs import replace

from rooftop.core.artifact import Result, Run
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.models.spec import ModelSpec

if TYPE_CHECKING:
    from rooftop.analytic.engine import Evaluation

# The analytic engine loads on first use: `rooftop.api` is imported by every entry point
# (`rooftop import` among them), and only the analytic ones need it.
DEFAULT_MEMORY_UTILIZATION = 0.9  # = rooftop.analytic.memory.DEFAULT_MEMORY_UTILIZATION (tests/api pins it)


class ContextWarning(UserWarning):
    """A context longer than the model's maximum position (analysed anyway)."""


def analyze_one(
    spec: ModelSpec,
    workload: Workload,
    roofs: Roofs,
    memory_utilization: float = DEFAULT_MEMORY_UTILIZATION,
    transform: Callable[[Evaluation], Evaluation] | None = None,
) -> Result:
    """Points, totals, memory budget and findings of one scalar workload.

    ``transform`` rewrites the evaluation before it is summarised (expert parallelism shards the
    experts and adds the all-to-alls: rooftop.analytic.expert_parallel.apply_ep).
    """
    from rooftop.analytic.engine import evaluate, to_points
    from rooftop.analytic.memory import budget
    from rooftop.analytic.summary import memory_at, totals_at
    from rooftop.diagnose.engine import Evidence, diagnose
    from rooftop.diagnose.evidence.memory import MemoryEvidence

    ev = evaluate(spec, workload, roofs)
    if transform is not None:
        ev = transform(ev)
    totals = totals_at(ev)
    memory = memory_at(budget(spec, workload, roofs.capacity_bytes, memory_utilization))
    described = {"model": spec.name, "hardware": roofs.name, **workload.describe()}
    points = tuple(to_points(ev))
    findings = diagnose(Evidence(points, roofs, totals, described, memory=MemoryEvidence.from_dict(memory)))
    return Result(workload=described, points=points, totals=totals, memory=memory, findings=tuple(findings))


def check_context(spec: ModelSpec, workloads: Iterable[Workload]) -> None:
    """Warn (never refuse) when a context exceeds the model's max_position_embeddings."""
    if not spec.max_positions:
        return
    longest = max(int(np.max(w.kv_tokens_after)) for w in workloads)
    if longest > spec.max_positions:
        warnings.warn(
            f"context {longest} exceeds {spec.name}'s max_position_embeddings ({spec.max_positions}); analysed anyway",
            ContextWarning,
            stacklevel=2,
        )


def model_spec(model: str | Path | ModelSpec) -> ModelSpec:
    """A ModelSpec from a preset name (any case), an HF repo id of a preset, a config.json path, or a ModelSpec."""
    if isinstance(model, ModelSpec):
        return model
    from rooftop.models.presets import resolve_model

    return resolve_model(str(model))


def device_roofs(device: str | Roofs) -> Roofs:
    """Roofs from a catalog device name (any case) or a Roofs object."""
    if isinstance(device, Roofs):
        return device
    from rooftop.hardware.catalog import get_roofs

    return get_roofs(device)


def analyze(
    spec: ModelSpec | str,
    roofs: Roofs | str,
    workloads: Sequence[Workload] | None = None,
    memory_utilization: float = DEFAULT_MEMORY_UTILIZATION,
) -> Run:
    """Analyse each workload of ``workloads`` (scalars) on ``roofs``; one Result each.

    ``spec`` and ``roofs`` may be names (a preset or config.json path; a catalog device); without
    ``workloads``, decode at batch 1 and 64, context 2048 (``rooftop.analyze`` takes shapes as keywords).
    """
    spec, roofs = model_spec(spec), device_roofs(roofs)
    if workloads is None:
        workloads = [Workload(phase=Phase.DECODE, batch=b) for b in (1, 64)]
    check_context(spec, workloads)
    results = tuple(analyze_one(spec, w, roofs, memory_utilization) for w in workloads)
    return Run(
        command="analyze", roofs=roofs, results=results, identity={"model": spec.describe(), "source": "analytic"}
    )


def workloads_for(
    phases: Sequence[Phase], batches: Sequence[int], prompts: Sequence[int], contexts: Sequence[int], base: Workload
) -> list[Workload]:
    """Cartesian workloads: prefill over batch × prompt, decode over batch × context."""
    out = []
    for phase in phases:
        lengths = prompts if phase is Phase.PREFILL else contexts
        for batch, length in itertools.product(batches, lengths):
            if phase is Phase.PREFILL:
                out.append(replace(base, phase=phase, batch=batch, prompt=length))
            else:
                out.append(replace(base, phase=phase, batch=batch, context=length))
    return out
