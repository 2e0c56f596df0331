"""Sweep entry point: batch × context grids per prompt/output cohort -> a Run with cells and findings.

Each cohort (seed 003 §14: keep short-answer and long-report traffic apart) is one Result: the
cells as a column table in ``extra['sweep']``, one roofline point per cell (while the grid is
small enough to draw), the totals of the goodput-optimal cell and the §15 findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np

from rooftop.analytic.memory import DEFAULT_MEMORY_UTILIZATION
from rooftop.analytic.summary import totals_at
from rooftop.analytic.sweep import BOUND_CODES, SweepGrid, sweep_grid
from rooftop.api.analysis import check_context
from rooftop.core.artifact import Result, Run
from rooftop.core.enums import Bound
from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.core.roofs import Roofs
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.diagnose.sweep import goodput, operating_point, slo_met, sweep_findings
from rooftop.errors import WorkloadError
from rooftop.models.spec import ModelSpec

if TYPE_CHECKING:
    from rooftop.api.techniques import Techniques

MAX_CELL_POINTS = 5000  # above this many cells, the artifact keeps the table but no per-cell points

COLUMNS = (
    "phase",
    "batch",
    "context",
    "prompt",
    "output_tokens",
    "time_s",
    "flop_per_s",
    "bytes_per_s",
    "intensity",
    "ttft_s",
    "tpot_s",
    "tokens_per_s",
    "goodput_tokens_per_s",
    "max_batch",
    "fits",
    "slo_met",
    "bound",
)


class Cohort(msgspec.Struct, frozen=True):
    """A class of requests: prompt tokens in, output tokens out."""

    prompt: int
    output_tokens: int
    name: str = ""

    @property
    def label(self) -> str:
        """The name, or 'prompt P / output O'."""
        return self.name or f"prompt {self.prompt} / output {self.output_tokens}"


def parse_cohort(text: str) -> Cohort:
    """'2048:256' or 'chat=2048:256' -> Cohort (prompt:output tokens, optional name)."""
    name, _, shape = text.rpartition("=")
    prompt, sep, output = shape.partition(":")
    try:
        if not sep:
            raise ValueError
        cohort = Cohort(int(prompt), int(output), name.strip())
    except ValueError:
        raise WorkloadError(f"cohort {text!r} must look like PROMPT:OUTPUT, e.g. 'chat=2048:256'") from None
    if cohort.prompt < 1 or cohort.output_tokens < 1:
        raise WorkloadError(f"cohort {text!r}: prompt and output tokens must be ≥ 1")
    return cohort


def cell_columns(grid: SweepGrid, slo: SLO) -> dict[str, Any]:
    """Every cell as flat numpy columns (batch-major), in COLUMNS order."""
    shape = grid.shape
    n = shape[0] * shape[1]

    def flat(x: Any) -> Any:
        return np.broadcast_to(np.asarray(x), shape).ravel()

    limit = np.broadcast_to(grid.max_batch[None, :], shape).ravel()
    return {
        "phase": np.full(n, "decode"),
        "batch": flat(grid.batch[:, None]).astype(np.int64),
        "context": flat(grid.context[None, :]).astype(np.int64),
        "prompt": np.full(n, grid.prompt),
        "output_tokens": np.full(n, grid.output_tokens),
        "time_s": flat(grid.tpot_s),
        "flop_per_s": flat(grid.flop_per_s),
        "bytes_per_s": flat(grid.bytes_per_s),
        "intensity": flat(grid.intensity),
        "ttft_s": np.full(n, grid.ttft_s),
        "tpot_s": flat(grid.tpot_s),
        "tokens_per_s": flat(grid.tokens_per_s),
        "goodput_tokens_per_s": flat(goodput(slo, grid)),
        "max_batch": limit,
        "fits": flat(grid.fits),
        "slo_met": flat(slo_met(slo, grid)),
        "bound": np.asarray(BOUND_CODES)[flat(grid.bound).astype(np.int64)],
    }


def _rows(columns: dict[str, Any]) -> list[list[Any]]:
    lists = [columns[name].tolist() for name in COLUMNS]
    return [list(row) for row in zip(*lists)]


def _cell_points(grid: SweepGrid, spec: ModelSpec, roofs: Roofs, dtype: str) -> tuple[RooflinePoint, ...]:
    if grid.shape[0] * grid.shape[1] > MAX_CELL_POINTS:
        return ()
    points = []
    for i, b in enumerate(grid.batch):
        for j, c in enumerate(grid.context):
            points.append(
                RooflinePoint(
                    label=f"decode step b={int(b)} c={int(c)}",
                    op="decode-step",
                    phase=Phase.DECODE,
                    flops=float(grid.flops[i, j]),
                    bytes=float(grid.bytes[i, j]),
                    time_s=float(grid.tpot_s[i, j]),
                    dtype=dtype,
                    source=Source.ANALYTIC,
                    bound=Bound(BOUND_CODES[int(grid.bound[i, j])]),
                    provenance={"model": spec.name, "hardware": roofs.name, "batch": int(b), "context": int(c)},
                )
            )
    return tuple(points)


def sweep_cohort(
    spec: ModelSpec,
    roofs: Roofs,
    base: Workload,
    batches: Sequence[int],
    contexts: Sequence[int] | None,
    cohort: Cohort,
    slo: SLO,
    memory_utilization: float = DEFAULT_MEMORY_UTILIZATION,
    techniques: Techniques | None = None,
) -> tuple[SweepGrid, Result]:
    """One cohort's grid and its Result (contexts default to prompt + output tokens).

    ``techniques`` apply speculative decoding, EP or chunked prefill to every cell and, with
    ``what_if``, add the operating point's what-if (rooftop.api.sweep_whatif).
    """
    grid_contexts = list(contexts) if contexts else [cohort.prompt + cohort.output_tokens]
    grid = sweep_grid(
        spec, roofs, base, batches, grid_contexts, cohort.prompt, cohort.output_tokens, memory_utilization
    )
    if techniques is not None:
        from rooftop.api.sweep_whatif import transform_grid

        grid = transform_grid(grid, spec, roofs, techniques)
    point = operating_point(grid, slo)
    columns = cell_columns(grid, slo)
    described = {
        "model": spec.name,
        "hardware": roofs.name,
        **base.describe(),
        "phase": "decode",
        "cohort": cohort.label,
        "prompt": cohort.prompt,
        "output_tokens": cohort.output_tokens,
        "batch": [int(b) for b in grid.batch],
        "context": [int(c) for c in grid.context],
    }
    op = {"batch": int(grid.batch[point[0]]), "context": int(grid.context[point[1]])} if point is not None else None
    result = Result(
        workload=described,
        points=_cell_points(grid, spec, roofs, base.compute),
        totals=totals_at(grid.decode, point) if point is not None else None,
        findings=tuple(sweep_findings(grid, slo)),
        extra={
            "sweep": {"columns": list(COLUMNS), "rows": _rows(columns)},
            "slo": {"ttft_s": slo.ttft_s, "tpot_s": slo.tpot_s},
            "operating_point": op,
            "memory_utilization": memory_utilization,
        },
    )
    if techniques is not None and techniques.what_if:
        from rooftop.api.sweep_whatif import cohort_what_if

        result = cohort_what_if(result, grid, point, spec, roofs, techniques)
    return grid, result


def sweep(
    spec: ModelSpec,
    roofs: Roofs,
    base: Workload,
    batches: Sequence[int],
    contexts: Sequence[int] | None,
    cohorts: Sequence[Cohort],
    slo: SLO,
    memory_utilization: float = DEFAULT_MEMORY_UTILIZATION,
    techniques: Techniques | None = None,
) -> Run:
    """Sweep every cohort over ``batches`` × ``contexts``; one Result per cohort."""
    if not cohorts:
        raise WorkloadError("a sweep needs at least one prompt/output cohort")
    for cohort in cohorts:
        longest = max(contexts) if contexts else cohort.prompt + cohort.output_tokens
        check_context(spec, [Workload(context=longest)])
    results = tuple(
        sweep_cohort(spec, roofs, base, batches, contexts, c, slo, memory_utilization, techniques)[1] for c in cohorts
    )
    return Run(command="sweep", roofs=roofs, results=results, identity={"model": spec.describe(), "source": "analytic"})
