"""What-if: re-evaluate one workload with each applicable remedy applied, before → after, ranked.

Each lever of :data:`rooftop.diagnose.remedies.LEVERS` (batch × n, FP8/INT4 weights, FP8 GEMMs,
FP8 KV, speculative decoding, flash attention, chunked prefill, another TP/EP/PP split,
disaggregation) is applied by :mod:`rooftop.api.whatif_levers` (the splits of the GPUs by
:mod:`rooftop.api.whatif_parallel`); every variant is predicted on the same roofs as the
baseline and ranked by its gain in one metric:

* goodput per GPU under the SLOs when any SLO is set;
* else TTFT (lower is better) for a prefill workload;
* else output tokens/s per GPU for a decode workload.

Variants that do not fit in memory rank after those that do. Each finding's remedies with a
lever get the best variant of that lever as ``predicted`` {metric: [before, after]} and its
assumptions; the ranked list goes in the result's ``what_if`` section.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import msgspec
from msgspec.structs import replace

from rooftop.api.analysis import analyze
from rooftop.api.whatif_levers import (
    Context,
    Options,
    Variant,
    lever_batch,
    lever_chunked,
    lever_flash,
    lever_fp8_gemm,
    lever_kv_fp8,
    lever_speculative,
    lever_weight_quant,
    state_of,
)
from rooftop.api.whatif_parallel import lever_disaggregate, lever_parallel
from rooftop.core.artifact import Result, Run
from rooftop.core.findings import Finding, Remedy
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.diagnose.remedies import LEVERS, REMEDIES
from rooftop.models.spec import ModelSpec

__all__ = ["Options", "WhatIf", "analyze_what_if", "attach", "what_if"]

LEVER_FUNCTIONS = {
    "batch": lever_batch,
    "weight-quant": lever_weight_quant,
    "fp8-gemm": lever_fp8_gemm,
    "kv-fp8": lever_kv_fp8,
    "speculative": lever_speculative,
    "flash-attention": lever_flash,
    "chunked-prefill": lever_chunked,
    "parallel": lever_parallel,
    "disaggregate": lever_disaggregate,
}

SHOWN_METRICS = ("ttft_s", "tpot_s", "tokens_per_s", "tokens_per_s_per_gpu", "goodput_tokens_per_s_per_gpu")


class WhatIf(msgspec.Struct, frozen=True):
    """The baseline's metrics and every variant, ranked by gain in ``rank_metric``."""

    rank_metric: str
    baseline: dict[str, Any]
    ranked: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form (the ``what_if`` section of a result)."""
        return {"rank_metric": self.rank_metric, "baseline": self.baseline, "remedies": list(self.ranked)}

    def best(self, lever: str) -> dict[str, Any] | None:
        """The highest-ranked variant of ``lever`` (None when it did not apply)."""
        return next((r for r in self.ranked if lever == r["lever"] or lever in r.get("also", ())), None)


def rank_metric(w: Workload, opts: Options) -> str:
    """Goodput per GPU with SLOs; TTFT for prefill; tokens/s per GPU for decode."""
    if opts.slo.ttft_s is not None or opts.slo.tpot_s is not None:
        return "goodput_tokens_per_s_per_gpu"
    return "ttft_s" if w.phase is Phase.PREFILL else "tokens_per_s_per_gpu"


def gain(metric: str, before: float, after: float) -> float:
    """Relative improvement: after/before − 1 (before/after − 1 for a time)."""
    if metric.endswith("_s"):
        return before / after - 1.0 if after > 0 else math.inf
    if before <= 0:
        return math.inf if after > 0 else 0.0
    return after / before - 1.0


@functools.cache
def _side_effects(lever: str) -> str:
    """The side effects of the first remedy of the table that names ``lever``."""
    return next((r.side_effects for rows in REMEDIES.values() for r in rows if r.lever == lever), "")


def _entry(v: Variant, baseline: dict[str, Any], metric: str, opts: Options) -> dict[str, Any]:
    after = v.state.metrics(opts.slo)
    predicted = {k: [baseline[k], after[k]] for k in (*SHOWN_METRICS, "max_itl_s", "fits", "free_bytes")}
    return {
        "name": v.name,
        "lever": v.lever,
        **({"also": list(v.also)} if v.also else {}),
        "action": LEVERS[v.lever],
        "side_effects": v.side_effects or _side_effects(v.lever),
        "predicted": predicted,
        "assumptions": v.assumptions,
        "gain": gain(metric, baseline[metric], after[metric]),
    }


def what_if(
    spec: ModelSpec, roofs: Roofs, w: Workload, opts: Options | None = None, levers: Sequence[str] | None = None
) -> WhatIf:
    """Every applicable variant of ``levers`` (default: all) on the scalar workload ``w``, ranked."""
    opts = opts or Options()
    memo: dict[Workload, float] = {}
    base = state_of(spec, roofs, w, opts, memo)
    ctx = Context(spec, roofs, w, opts, base, memo)
    metric = rank_metric(w, opts)
    baseline = base.metrics(opts.slo)
    entries = []
    for lever in levers or LEVER_FUNCTIONS:
        entries += [_entry(v, baseline, metric, opts) for v in LEVER_FUNCTIONS[lever](ctx)]
    entries.sort(key=lambda e: (not e["predicted"]["fits"][1], -e["gain"]))
    for i, e in enumerate(entries, 1):
        e["rank"] = i
    return WhatIf(metric, baseline, tuple(entries))


def attach(findings: Sequence[Finding], result: WhatIf) -> tuple[Finding, ...]:
    """Findings whose lever-bearing remedies carry the best variant's prediction and assumptions."""
    out = []
    for f in findings:
        remedies = []
        for r in f.remedies:
            best = result.best(r.lever) if r.lever else None
            if best is not None:
                assumptions = {"variant": best["name"], "rank": best["rank"], **best["assumptions"]}
                r = replace(r, predicted=best["predicted"], assumptions=assumptions)
            remedies.append(r)
        out.append(replace(f, remedies=tuple(remedies)))
    return tuple(out)


def with_what_if(result: Result, spec: ModelSpec, roofs: Roofs, w: Workload, opts: Options) -> Result:
    """``result`` with its ``what_if`` section and predicted remedies."""
    found = what_if(spec, roofs, w, opts)
    return replace(result, findings=attach(result.findings, found), extra={**result.extra, "what_if": found.to_dict()})


def analyze_what_if(spec: ModelSpec, roofs: Roofs, workloads: Sequence[Workload], opts: Options | None = None) -> Run:
    """``analyze`` of each workload, each with its what-if."""
    opts = opts or Options()
    run = analyze(spec, roofs, workloads, opts.memory_utilization)
    results = tuple(with_what_if(r, spec, roofs, w, opts) for r, w in zip(run.results, workloads, strict=True))
    return replace(run, command="analyze --what-if", results=results)


def remedies_with_levers() -> list[Remedy]:
    """Every remedy of the table that a lever can apply."""
    return [r for rows in REMEDIES.values() for r in rows if r.lever]
