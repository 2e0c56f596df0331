"""Analytic entry point: a model and workloads on a device -> a Run with points, totals, findings.

``analyze`` is the analytic entry point; later sources (measure, ingest, serving) add theirs
beside it. Each returns a :class:`rooftop.core.artifact.Run`.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

import numpy as np

from rooftop.analytic.engine import Evaluation, evaluate, to_points
from rooftop.analytic.memory import DEFAULT_MEMORY_UTILIZATION, budget
from rooftop.analytic.summary import memory_at, totals_at
from rooftop.core.artifact import Result, Run
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.diagnose.engine import Evidence, diagnose
from rooftop.models.spec import ModelSpec


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
    ev = evaluate(spec, workload, roofs)
    if transform is not None:
        ev = transform(ev)
    totals = totals_at(ev)
    memory = memory_at(budget(spec, workload, roofs.capacity_bytes, memory_utilization))
    described = {"model": spec.name, "hardware": roofs.name, **workload.describe()}
    points = tuple(to_points(ev))
    findings = diagnose(Evidence(points, roofs, totals, described))
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


def analyze(
    spec: ModelSpec, roofs: Roofs, workloads: Sequence[Workload], memory_utilization: float = DEFAULT_MEMORY_UTILIZATION
) -> Run:
    """Analyse each workload of ``workloads`` (scalars) on ``roofs``; one Result each."""
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
