"""Compare two runs: per-op and total deltas (time, bytes, intensity, bound changes).

Results are paired by workload (phase, batch, prompt, context); ops within a pair by name. Runs
whose identities make the comparison meaningless — different models or different hardware — are
refused with the reason unless ``force`` is set (then the reason is kept as a warning).
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from rooftop.core.artifact import Result, Run
from rooftop.errors import ReportError

PAIR_KEYS = ("phase", "batch", "prompt", "context", "cohort")


class OpDelta(msgspec.Struct, frozen=True):
    """One operator before and after (None where it exists on one side only)."""

    name: str
    before_time_s: float | None
    after_time_s: float | None
    before_bytes: float | None
    after_bytes: float | None
    before_intensity: float | None
    after_intensity: float | None
    before_bound: str
    after_bound: str

    @property
    def time_ratio(self) -> float:
        """After / before time (NaN when either is missing or zero)."""
        if not self.before_time_s or self.after_time_s is None:
            return float("nan")
        return self.after_time_s / self.before_time_s

    @property
    def bound_changed(self) -> bool:
        """Whether the binding roof differs."""
        return bool(self.before_bound and self.after_bound and self.before_bound != self.after_bound)


class ResultDelta(msgspec.Struct, frozen=True):
    """One paired workload: its ops and its totals before and after."""

    key: dict[str, Any]
    ops: tuple[OpDelta, ...]
    totals: dict[str, tuple[float | None, float | None]]


class Comparison(msgspec.Struct, frozen=True):
    """The whole comparison plus what could not be paired and any forced-through reasons."""

    before: str
    after: str
    results: tuple[ResultDelta, ...]
    unpaired: tuple[str, ...] = ()
    warnings: tuple[str, ...] = msgspec.field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form (schema rooftop.compare/1)."""
        return {
            "schema": "rooftop.compare/1",
            "before": self.before,
            "after": self.after,
            "warnings": list(self.warnings),
            "unpaired": list(self.unpaired),
            "results": [
                {
                    "workload": r.key,
                    "totals": {k: {"before": b, "after": a} for k, (b, a) in r.totals.items()},
                    "ops": [
                        {
                            "name": o.name,
                            "time_s": {"before": o.before_time_s, "after": o.after_time_s},
                            "bytes": {"before": o.before_bytes, "after": o.after_bytes},
                            "intensity": {"before": o.before_intensity, "after": o.after_intensity},
                            "bound": {"before": o.before_bound, "after": o.after_bound},
                            "time_ratio": None if math.isnan(o.time_ratio) else o.time_ratio,
                            "bound_changed": o.bound_changed,
                        }
                        for o in r.ops
                    ],
                }
                for r in self.results
            ],
        }


def _model(run: Run) -> str:
    model = run.identity.get("model")
    if isinstance(model, dict):
        return str(model.get("name", ""))
    if model:
        return str(model)
    names = {str(r.workload.get("model", "")) for r in run.results}
    return ",".join(sorted(n for n in names if n))


def incompatibilities(before: Run, after: Run) -> list[str]:
    """Why comparing these runs op by op would mislead (empty when they are comparable)."""
    reasons = []
    if _model(before) != _model(after):
        reasons.append(f"different models ({_model(before)!r} vs {_model(after)!r})")
    if before.roofs.name != after.roofs.name:
        reasons.append(f"different hardware ({before.roofs.name!r} vs {after.roofs.name!r})")
    return reasons


def _key(result: Result) -> tuple[Any, ...]:
    return tuple(str(result.workload.get(k)) for k in PAIR_KEYS)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _ops(before: Result, after: Result) -> tuple[OpDelta, ...]:
    b = {p.label: p for p in before.points}
    a = {p.label: p for p in after.points}
    names = list(b) + [n for n in a if n not in b]
    out = []
    for name in names:
        pb, pa = b.get(name), a.get(name)
        out.append(
            OpDelta(
                name,
                pb.time_s if pb else None,
                pa.time_s if pa else None,
                pb.bytes if pb else None,
                pa.bytes if pa else None,
                _finite(pb.intensity) if pb else None,
                _finite(pa.intensity) if pa else None,
                pb.bound if pb else "",
                pa.bound if pa else "",
            )
        )
    return tuple(out)


def _totals(before: Result, after: Result) -> dict[str, tuple[float | None, float | None]]:
    out: dict[str, tuple[float | None, float | None]] = {}
    for name in ("time_s", "tokens_per_s", "flops", "bytes", "intensity", "mfu", "mbu"):
        vb = getattr(before.totals, name) if before.totals else None
        va = getattr(after.totals, name) if after.totals else None
        out[name] = (vb, va)
    return out


def compare(before: Run, after: Run, force: bool = False, names: tuple[str, str] = ("before", "after")) -> Comparison:
    """Per-op and total deltas of ``after`` against ``before``."""
    reasons = incompatibilities(before, after)
    if reasons and not force:
        raise ReportError(f"will not compare {names[0]} with {names[1]}: {'; '.join(reasons)}")
    after_by_key = {_key(r): r for r in after.results}
    paired = []
    unpaired = []
    for rb in before.results:
        ra = after_by_key.pop(_key(rb), None)
        if ra is None:
            unpaired.append(f"{names[0]}: {dict(zip(PAIR_KEYS, _key(rb)))}")
            continue
        key = {k: rb.workload.get(k) for k in PAIR_KEYS if rb.workload.get(k) is not None}
        paired.append(ResultDelta(key, _ops(rb, ra), _totals(rb, ra)))
    unpaired += [f"{names[1]}: {dict(zip(PAIR_KEYS, k))}" for k in after_by_key]
    if not paired:
        raise ReportError(f"{names[0]} and {names[1]} share no workload (phase, batch, prompt, context) to compare")
    return Comparison(names[0], names[1], tuple(paired), tuple(unpaired), tuple(reasons))
