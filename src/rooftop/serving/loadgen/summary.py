"""Records → the bench summary: TTFT/TPOT/ITL/E2E quantiles, throughput, goodput against SLOs.

Definitions (docs/serving.md): TTFT = first token chunk − send; ITL = gap between successive
token chunks; TPOT = (E2E − TTFT)/(n − 1) per request (n from usage); E2E = last token chunk
− send. Failed and timed-out requests are excluded from latency quantiles but count in
``requests`` and in goodput's denominator (they never meet an SLO). Goodput = requests meeting
every given SLO per second of the run (DistServe / vllm bench serve --goodput).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import msgspec
import numpy as np

from rooftop.core.slo import SLO
from rooftop.serving.loadgen.client import RequestRecord

QUANTILES = (50, 90, 99)


def slo_met(slo: SLO, r: RequestRecord) -> bool:
    """Whether request ``r`` succeeded and met every objective set (n ≤ 1 ⇒ TPOT 0)."""
    return r.ok and bool(slo.met(r.ttft_s, r.tpot_s if r.n_tokens > 1 else 0.0, r.e2e_s))


def quantiles(values: Sequence[float]) -> dict[str, float | None]:
    """{'p50','p90','p99','mean'} of the finite values (None when there are none)."""
    arr = np.asarray([v for v in values if math.isfinite(v)], dtype=np.float64)
    if arr.size == 0:
        return {**{f"p{q}": None for q in QUANTILES}, "mean": None}
    return {**{f"p{q}": float(np.percentile(arr, q)) for q in QUANTILES}, "mean": float(arr.mean())}


Quantiles = dict[str, float | None]  # {'p50', 'p90', 'p99', 'mean'} in seconds


class BenchSummary(msgspec.Struct, frozen=True):
    """One load level from the client's side (docs/serving.md, `bench --json`)."""

    requests: int
    completed: int
    failed: int
    errors: dict[str, int]  # failed requests by the first word of their error
    duration_s: float
    ttft_s: Quantiles
    tpot_s: Quantiles
    itl_s: Quantiles
    e2e_s: Quantiles
    input_tokens: int
    output_tokens: int
    request_throughput_rps: float
    output_tokens_per_s: float
    goodput_rps: float
    slo: SLO
    schedule_lag_s: Quantiles

    def to_dict(self) -> dict[str, Any]:
        """The JSON object, keys in the documented order."""
        out = msgspec.structs.asdict(self)
        out["slo"] = self.slo.to_dict()
        return out


def summarize(records: Sequence[RequestRecord], duration_s: float, slo: SLO) -> BenchSummary:
    """Requests, failures, TTFT/TPOT/ITL/E2E quantiles, throughput and goodput against ``slo``."""
    ok = [r for r in records if r.ok]
    out_tokens = sum(r.n_tokens for r in ok)
    good = sum(1 for r in records if slo_met(slo, r))
    per_s = 1.0 / duration_s if duration_s > 0 else float("nan")
    errors: dict[str, int] = {}
    for r in records:
        if not r.ok:
            kind = r.error.split(":")[0] or "no content"
            errors[kind] = errors.get(kind, 0) + 1
    return BenchSummary(
        requests=len(records),
        completed=len(ok),
        failed=len(records) - len(ok),
        errors=errors,
        duration_s=duration_s,
        ttft_s=quantiles([r.ttft_s for r in ok]),
        tpot_s=quantiles([r.tpot_s for r in ok]),
        itl_s=quantiles([g for r in ok for g in r.itl_s]),
        e2e_s=quantiles([r.e2e_s for r in ok]),
        input_tokens=sum(r.prompt_tokens or 0 for r in ok),
        output_tokens=out_tokens,
        request_throughput_rps=len(ok) * per_s,
        output_tokens_per_s=out_tokens * per_s,
        goodput_rps=good * per_s,
        slo=slo,
        schedule_lag_s=quantiles([r.schedule_lag_s for r in records if math.isfinite(r.sent_s)]),
    )
