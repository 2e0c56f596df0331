"""Findings of a capacity sweep (seed 003 §15): where to run, and why not at the right-most point.

From one cohort's :class:`~rooftop.analytic.sweep.SweepGrid`, at its operating context:

* ``sweep-linear-throughput`` — the batches over which tokens/s grows almost linearly (the step
  time stays within 10 % of the smallest batch's: weight reads are shared);
* ``sweep-hbm-saturated`` — the batches where the decode step runs HBM at ≥ 90 % of its roof;
* ``sweep-ridge-crossing`` — the batch where the weight-bearing GEMMs reach the ridge, and
  whether the whole step ever does (KV reads grow with batch, so it often never does);
* ``sweep-kv-admission`` — per context, the most sequences the KV cache admits;
* ``sweep-operating-point`` — the cell that maximises goodput under the SLOs, compared with the
  right-most cell of the grid.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rooftop.analytic.cost import Array
from rooftop.analytic.sweep import SweepGrid
from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.core.slo import SLO
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES
from rooftop.units import seconds

LINEAR_TOLERANCE = 1.10  # step time within 10 % of the smallest batch's: throughput ~ linear in batch
HBM_SATURATED = 0.90  # share of the HBM roof that counts as saturated


def slo_met(slo: SLO, grid: SweepGrid) -> NDArray[np.bool_]:
    """Per cell: every SLO holds and the batch fits in memory."""
    met: NDArray[np.bool_] = grid.fits & slo.met(grid.ttft_s, grid.tpot_s)
    return met


def goodput(slo: SLO, grid: SweepGrid) -> Array:
    """Output tokens/s where the SLOs hold and the batch fits; 0 elsewhere."""
    return np.where(slo_met(slo, grid), grid.tokens_per_s, 0.0)


def operating_context_index(grid: SweepGrid) -> int:
    """The grid context nearest to prompt + output tokens (the longest a request reaches; ties → larger)."""
    target = grid.prompt + grid.output_tokens
    distance = np.abs(grid.context - target)
    return int(np.flatnonzero(distance == distance.min())[-1])


def operating_point(grid: SweepGrid, slo: SLO) -> tuple[int, int] | None:
    """(batch index, context index) of the goodput-optimal cell at the operating context, or None."""
    j = operating_context_index(grid)
    good = goodput(slo, grid)[:, j]
    if not np.any(good > 0):
        return None
    return int(np.argmax(good)), j


def _b(grid: SweepGrid, i: int) -> int:
    return int(grid.batch[i])


def linear_region(grid: SweepGrid, j: int) -> Finding:
    """Batches over which throughput grows ~linearly (step time within LINEAR_TOLERANCE)."""
    tpot = grid.tpot_s[:, j]
    rate = grid.batch / tpot  # decode tokens/s at this context
    linear = tpot <= tpot[0] * LINEAR_TOLERANCE
    last = int(np.flatnonzero(linear)[-1])
    tail = (
        f"; beyond it tokens/s still rises but TPOT worsens ({seconds(tpot[last])} → {seconds(tpot[-1])} "
        f"at batch {_b(grid, -1)})"
        if last + 1 < grid.batch.size
        else ""
    )
    context = int(grid.context[j])
    if last == 0 and grid.batch.size > 1:  # the next grid batch already costs more: no range to name
        title = (
            f"No linear range on this grid at context {context}: step time rises "
            f"{tpot[1] / tpot[0]:.1f}× from batch {_b(grid, 0)} to {_b(grid, 1)} ({seconds(tpot[0])} → "
            f"{seconds(tpot[1])}, more than {LINEAR_TOLERANCE - 1:.0%}): a linear range, if any, ends between them"
        )
    else:
        title = (
            f"Throughput grows ~linearly with batch from {_b(grid, 0)} to {_b(grid, last)} at context "
            f"{context} (step time within {LINEAR_TOLERANCE - 1:.0%}: weight reads are shared){tail}"
        )
    return Finding(
        code="sweep-linear-throughput",
        severity=Severity.INFO,
        title=title,
        bottleneck="weight-bandwidth",
        evidence={
            "context": context,
            "linear_until_batch": _b(grid, last),
            "tpot_s_at_first_batch": float(tpot[0]),
            "tpot_s_at_linear_end": float(tpot[last]),
            "decode_tokens_per_s": {str(_b(grid, i)): float(rate[i]) for i in range(tpot.size)},
        },
    )


def hbm_saturation(grid: SweepGrid, j: int) -> Finding:
    """Batches where the decode step runs HBM at ≥ HBM_SATURATED of its roof."""
    share = grid.bytes_per_s[:, j] / grid.bandwidth_bytes_per_s
    saturated = np.flatnonzero(share >= HBM_SATURATED)
    if saturated.size:
        title = (
            f"HBM is saturated (≥ {HBM_SATURATED:.0%} of {grid.bandwidth_bytes_per_s / 1e12:.2f} TB/s) from batch "
            f"{_b(grid, saturated[0])} to {_b(grid, saturated[-1])} at context {int(grid.context[j])}: "
            "more batch adds bytes (KV) at the same rate"
        )
    else:
        title = f"HBM never reaches {HBM_SATURATED:.0%} of its roof at context {int(grid.context[j])}"
    return Finding(
        code="sweep-hbm-saturated",
        severity=Severity.INFO,
        title=title,
        bottleneck="kv-bandwidth" if saturated.size else "compute",
        evidence={
            "context": int(grid.context[j]),
            "hbm_share_of_roof": {str(_b(grid, i)): round(float(share[i]), 4) for i in range(share.size)},
        },
        check_first=CHECK_FIRST["kv-bandwidth"],
    )


def ridge_crossing(grid: SweepGrid, j: int) -> Finding:
    """Batch where the GEMMs reach the ridge; whether the whole decode step ever does."""
    crossing = grid.gemm_ridge_batch()
    ridge = grid.ridge_flop_per_byte
    in_grid = np.flatnonzero(grid.batch >= crossing)
    first = _b(grid, in_grid[0]) if in_grid.size else None
    step = grid.intensity[:, j]
    step_cross = np.flatnonzero(step >= ridge)
    where = f"first grid batch at or past it: {first}" if first is not None else "beyond the grid"
    whole = (
        f"the whole step crosses at batch {_b(grid, step_cross[0])}"
        if step_cross.size
        else f"the whole step never does (intensity peaks at {step.max():.1f} FLOP/B: KV reads grow with batch)"
    )
    return Finding(
        code="sweep-ridge-crossing",
        severity=Severity.INFO,
        title=(
            f"The weight GEMMs cross the ridge ({ridge:.0f} FLOP/B) at batch ≈ {crossing:.0f} ({where}); {whole}"
            if math.isfinite(crossing)
            else f"The weight GEMMs never reach the ridge ({ridge:.0f} FLOP/B); {whole}"
        ),
        bottleneck="compute",
        evidence={
            "ridge_flop_per_byte": ridge,
            "gemm_ridge_batch": crossing if math.isfinite(crossing) else None,
            "first_grid_batch_past_ridge": first,
            "context": int(grid.context[j]),
            "step_intensity": {str(_b(grid, i)): round(float(step[i]), 3) for i in range(step.size)},
        },
    )


def kv_admission(grid: SweepGrid) -> Finding:
    """The KV admission limit at each context."""
    limits = {str(int(c)): (None if math.isnan(m) else int(m)) for c, m in zip(grid.context, grid.max_batch)}
    shown = ", ".join(f"{c}: {m if m is not None else '?'}" for c, m in limits.items())
    return Finding(
        code="sweep-kv-admission",
        severity=Severity.INFO,
        title=f"The KV cache admits at most (context: sequences) {shown}",
        bottleneck="kv-capacity",
        evidence={"max_batch_by_context": limits, "cached_prefix_shared": grid.cached_prefix},
        remedies=REMEDIES["kv-bandwidth"],
        check_first="KV bytes per token, KV dtype, memory utilisation, prefix sharing",
    )


def _why_not(grid: SweepGrid, slo: SLO, i: int, j: int) -> str:
    reasons = []
    if not grid.fits[i, j]:
        reasons.append(f"its KV cache does not fit (limit {int(grid.max_batch[j])})")
    if slo.tpot_s is not None and grid.tpot_s[i, j] > slo.tpot_s:
        reasons.append(f"TPOT {seconds(grid.tpot_s[i, j])} > SLO {seconds(slo.tpot_s)}")
    if slo.ttft_s is not None and grid.ttft_s > slo.ttft_s:
        reasons.append(f"TTFT {seconds(grid.ttft_s)} > SLO {seconds(slo.ttft_s)}")
    return " and ".join(reasons) or "it has lower goodput"


def goodput_point(grid: SweepGrid, slo: SLO) -> Finding:
    """The goodput-optimal cell under the SLOs at the operating context."""
    j = operating_context_index(grid)
    point = operating_point(grid, slo)
    last = grid.batch.size - 1
    if point is None:
        return Finding(
            code="sweep-operating-point",
            severity=Severity.CRITICAL,
            title=(
                f"No batch meets the SLOs at context {int(grid.context[j])}: at batch {_b(grid, 0)}, "
                f"{_why_not(grid, slo, 0, j)}"
            ),
            bottleneck="scheduler",
            evidence={"context": int(grid.context[j]), "slo_ttft_s": slo.ttft_s, "slo_tpot_s": slo.tpot_s},
            remedies=REMEDIES["scheduler"],
            check_first=CHECK_FIRST["scheduler"],
        )
    i, j = point
    good = goodput(slo, grid)
    evidence: dict[str, Any] = {
        "batch": _b(grid, i),
        "context": int(grid.context[j]),
        "goodput_tokens_per_s": float(good[i, j]),
        "requests_per_s": float(good[i, j]) / grid.output_tokens,
        "ttft_s": grid.ttft_s,
        "tpot_s": float(grid.tpot_s[i, j]),
        "slo_ttft_s": slo.ttft_s,
        "slo_tpot_s": slo.tpot_s,
        "rightmost_batch": _b(grid, last),
        "rightmost_tokens_per_s": float(grid.tokens_per_s[last, j]),
        "rightmost_goodput_tokens_per_s": float(good[last, j]),
    }
    rightmost = "" if i == last else f"; not the right-most batch {_b(grid, last)}: {_why_not(grid, slo, last, j)}"
    return Finding(
        code="sweep-operating-point",
        severity=Severity.INFO,
        title=(
            f"Operating point: batch {_b(grid, i)} at context {int(grid.context[j])} — goodput "
            f"{good[i, j]:,.0f} tokens/s, TPOT {seconds(grid.tpot_s[i, j])}, TTFT {seconds(grid.ttft_s)}{rightmost}"
        ),
        bottleneck="scheduler",
        evidence=evidence,
        remedies=REMEDIES["scheduler"][1:],
        check_first=CHECK_FIRST["scheduler"],
    )


def sweep_findings(grid: SweepGrid, slo: SLO) -> list[Finding]:
    """Every §15 finding of one cohort's sweep."""
    j = operating_context_index(grid)
    return [
        goodput_point(grid, slo),
        linear_region(grid, j),
        hbm_saturation(grid, j),
        ridge_crossing(grid, j),
        kv_admission(grid),
    ]
