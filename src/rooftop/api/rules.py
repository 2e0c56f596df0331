"""`rooftop rules`: Prometheus recording and alerting rules that run watch's accounting in Prometheus.

The analytic engine prices a prefill sequence of L tokens and a decode step of B sequences at
context C. Those prices are exact polynomials in L (and B, B·C) plus, for MoE models, the
expected-distinct-experts term 1 − r^T, and for each attention bound W (sliding windows, DSA's
top-k) the window's pairs (prefill m(m+1)/2 + (L − m)·W with m = min(L, W); decode B·min(C + 1, W));
and for Llama-4's chunk K the chunks' pairs (prefill ⌊L/K⌋·K(K+1)/2 + (L mod K)(L mod K + 1)/2;
decode B·((C mod K) + 1)); we fit the coefficients to the engine's own numbers at a handful of
shapes (and on both sides of each bound), check the fit at other shapes (to 1e-9), and hand them
to the PromQL writer (serving/promql.py). Alerts carry the remedies of diagnose/remedies.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import numpy as np
from msgspec.structs import replace
from numpy.typing import NDArray

from rooftop.analytic.engine import evaluate
from rooftop.analytic.ops.attention import pairs
from rooftop.api.live_model import LiveModel, live_model
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import RooftopError, WorkloadError
from rooftop.serving.engines import engine_map
from rooftop.serving.promalerts import AlertTiming, alert_rules
from rooftop.serving.promql import QUANTITIES, CostPoly, ModelCosts, Scope, recording_rules
from rooftop.serving.yaml_text import dump

PREFILL_FIT = np.array([1, 2, 3, 4, 5, 6, 8, 16, 64, 512, 2048], dtype=np.float64)
PREFILL_CHECK = np.array([7, 100, 777, 4096], dtype=np.float64)
BATCH_FIT = np.array([1, 2, 3, 4, 6, 8, 16, 64], dtype=np.float64)
CONTEXT_FIT = np.array([0, 1, 7, 100, 1000, 4096], dtype=np.float64)
BATCH_CHECK, CONTEXT_CHECK = np.array([5, 37, 256]), np.array([3, 555, 8000])
TOLERANCE = 1e-9


class FitError(RooftopError):
    """The analytic costs are not of the shape the rules can express (a new operator formula)."""


def _totals(live: LiveModel, w: Workload) -> dict[str, NDArray[np.float64]]:
    ev = evaluate(live.spec, w, live.roofs)
    useful = ev.total("weight_bytes") + ev.total("kv_read_bytes")
    return {"model_flops": ev.total("model_flops"), "useful_bytes": useful, "bytes": ev.bytes}


def _moe_keep(live: LiveModel) -> float:
    moe = live.spec.moe
    return 1.0 - moe.active_k / moe.experts if moe and live.spec.moe_layers else 0.0


def _chunks(live: LiveModel) -> tuple[float, ...]:
    """Llama-4's attention chunk (a basis column of its own), or none."""
    s = live.spec
    return (float(s.chunk),) if "chunked" in s.mixers and s.chunk else ()


def _windows(live: LiveModel) -> tuple[float, ...]:
    """The attention bounds of the model: its sliding window, DSA's top-k (each a basis column)."""
    s = live.spec
    bounds = {float(s.window)} if "sliding" in s.mixers and s.window else set()
    return tuple(sorted(bounds | ({float(s.indexer.topk)} if s.indexer else set())))


def _bound_pairs(
    x: NDArray[Any], y: NDArray[Any], prefill: bool, window: float = 0.0, chunk: float = 0.0
) -> NDArray[np.float64]:
    """Query-key pairs of one bounded layer, by the attention formula's own ``pairs``.

    A prefill of L tokens (window: m(m+1)/2 + (L − m)·W, m = min(L, W)), or B decode steps at
    context C (window: B·min(C + 1, W); chunk: B·((C mod K) + 1)).
    """
    if prefill:
        return np.asarray(pairs(x, 0.0, True, window, chunk), dtype=np.float64)
    return np.asarray(x * pairs(1.0, y, True, window, chunk), dtype=np.float64)


def _basis(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    r: float,
    prefill: bool,
    windows: tuple[float, ...] = (),
    chunks: tuple[float, ...] = (),
) -> NDArray[np.float64]:
    """Prefill [1, L, L², 1−r^L, window pairs…, chunk pairs…]; decode [1, B, B·C, 1−r^B, …] (1−r^T: MoE)."""
    cols = [np.ones_like(x), x, x * x if prefill else x * y]
    if r:
        cols.append(1.0 - r**x)
    cols += [_bound_pairs(x, y, prefill, window=w) for w in windows]
    cols += [_bound_pairs(x, y, prefill, chunk=k) for k in chunks]
    return np.stack(cols, axis=-1)


def _around(base: NDArray[np.float64], bounds: tuple[float, ...], steps: tuple[float, ...]) -> NDArray[np.float64]:
    """``base`` and shapes on both sides of each bound (the columns part there)."""
    extra = [max(b * s, 1.0) for b in bounds for s in steps]  # a prompt is at least one token
    return np.unique(np.concatenate([base, np.round(extra)])).astype(np.float64)


def _solve(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    scale = np.abs(a).max(axis=0)
    scale[scale == 0] = 1.0
    coef, *_ = np.linalg.lstsq(a / scale, b, rcond=None)
    out: NDArray[np.float64] = coef / scale
    return out


def _fit(live: LiveModel, phase: Phase, xs: NDArray[Any], ys: NDArray[Any]) -> dict[str, CostPoly]:
    r, prefill, windows, chunks = _moe_keep(live), phase is Phase.PREFILL, _windows(live), _chunks(live)
    x, y = (xs, np.zeros_like(xs)) if prefill else (v.ravel() for v in np.meshgrid(xs, ys, indexing="ij"))
    w = _workload(live, phase, x, y)
    totals, basis = _totals(live, w), _basis(x, y, r, prefill, windows, chunks)
    out = {}
    for q in QUANTITIES:
        c = [float(v) for v in _solve(basis, np.broadcast_to(totals[q], x.shape))]
        cm, rest = (c[3], c[4:]) if r else (0.0, c[3:])
        bounded = tuple(zip(windows, rest[: len(windows)], strict=True))
        chunked = tuple(zip(chunks, rest[len(windows) :], strict=True))
        out[q] = CostPoly(c[0], c[1], c[2], cm, bounded, chunked)
    return out


def _snapped(poly: CostPoly) -> CostPoly:
    """Least-squares noise off: a coefficient within 1e-11 of the largest one of an integer is that integer."""
    bounds = (*poly.windows, *poly.chunks)
    c = (poly.c0, poly.c1, poly.c2, poly.cm, *(coef for _, coef in bounds))
    size = max(max(map(abs, c)), 1.0)
    a, b, d, m, *ws = (float(round(v)) if abs(round(v) - v) <= 1e-11 * size else v for v in c)
    n = len(poly.windows)
    windows = tuple(zip((w for w, _ in poly.windows), ws[:n], strict=True))
    return CostPoly(a, b, d, m, windows, tuple(zip((k for k, _ in poly.chunks), ws[n:], strict=True)))


def _workload(live: LiveModel, phase: Phase, x: NDArray[Any], y: NDArray[Any]) -> Workload:
    if phase is Phase.PREFILL:
        return replace(live.base, phase=phase, batch=1, prompt=x, cached_prefix=0)
    return replace(live.base, phase=phase, batch=x, context=y)


def _value(p: CostPoly, x: NDArray[Any], y: NDArray[Any], r: float, prefill: bool) -> NDArray[np.float64]:
    third = x * x if prefill else x * y
    out: NDArray[np.float64] = p.c0 + p.c1 * x + p.c2 * third + (p.cm * (1.0 - r**x) if r else 0.0)
    for bound, coef in p.windows:
        out = out + coef * _bound_pairs(x, y, prefill, window=bound)
    for size, coef in p.chunks:
        out = out + coef * _bound_pairs(x, y, prefill, chunk=size)
    return out


def _check(live: LiveModel, phase: Phase, polys: dict[str, CostPoly], xs: NDArray[Any], ys: NDArray[Any]) -> None:
    prefill, r = phase is Phase.PREFILL, _moe_keep(live)
    x, y = (xs, np.zeros_like(xs)) if prefill else (v.ravel() for v in np.meshgrid(xs, ys, indexing="ij"))
    x, y = x.astype(np.float64), y.astype(np.float64)
    totals = _totals(live, _workload(live, phase, x, y))
    for q, poly in polys.items():
        want = np.broadcast_to(totals[q], x.shape)
        err = np.abs(_value(poly, x, y, r, prefill) - want) / np.maximum(np.abs(want), 1.0)
        if err.max() > TOLERANCE:
            raise FitError(
                f"{live.spec.name}: {phase.value} {q} is not polynomial in the shapes "
                f"(relative error {err.max():.1e}); the rules cannot express it"
            )


def _checked(live: LiveModel, phase: Phase, raw: dict[str, CostPoly]) -> dict[str, CostPoly]:
    """The snapped coefficients when they still fit, else the raw ones (each checked off the fit)."""
    bounds = (*_windows(live), *_chunks(live))
    if phase is Phase.PREFILL:
        xs = ys = _around(PREFILL_CHECK, bounds, (0.5, 1.5, 3))
    else:
        xs, ys = BATCH_CHECK, _around(CONTEXT_CHECK, bounds, (0.5, 1.5, 3))
    snapped = {q: _snapped(p) for q, p in raw.items()}
    try:
        _check(live, phase, snapped, xs, ys)
        return snapped
    except FitError:
        _check(live, phase, raw, xs, ys)
        return raw


def model_costs(live: LiveModel) -> ModelCosts:
    """Cost polynomials of ``live`` (fitted, then checked at shapes outside the fit)."""
    bounds = (*_windows(live), *_chunks(live))
    prefill = _around(PREFILL_FIT, bounds, (0.25, 0.5, 1, 1.5, 2, 2.5, 4))
    context = _around(CONTEXT_FIT, bounds, (0.5, 1, 1.5, 2, 2.5, 4))
    pre = _checked(live, Phase.PREFILL, _fit(live, Phase.PREFILL, prefill, prefill))
    dec = _checked(live, Phase.DECODE, _fit(live, Phase.DECODE, BATCH_FIT, context))
    return ModelCosts(pre, dec, _moe_keep(live), live.roofs.peak(live.base.compute), live.roofs.bandwidth("hbm"))


def remedy_annotations() -> dict[str, dict[str, str]]:
    """Per bottleneck: what to check first and the remedies (with their side effects)."""
    from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

    return {
        key: {
            "check_first": CHECK_FIRST[key],
            "remedy": "; ".join(r.action for r in remedies),
            "side_effects": "; ".join(r.side_effects for r in remedies),
        }
        for key, remedies in REMEDIES.items()
    }


class RuleSet(msgspec.Struct, frozen=True):
    """The rule groups of one model on one device behind one engine."""

    engine: str
    scope: Scope
    groups: tuple[dict[str, Any], ...]


def rule_set(
    model: str,
    hardware: str,
    engine: str = "vllm",
    *,
    dtype: str = "bf16",
    tp: int = 1,
    selector: str = "",
    window: str = "1m",
    name: str | None = None,
    timing: AlertTiming | None = None,
    interval: str | None = None,
    peak: str | None = None,
    bandwidth: str | None = None,
    model_label: str | None = None,
) -> RuleSet:
    """Recording and alerting rules for ``model`` on ``hardware`` served by ``engine``.

    ``model_label``: for an engine whose request counters are per model (Triton), the one model
    they are read from (default: the client-facing models, as watch picks them).
    """
    emap = engine_map(engine)
    if model_label and not emap.requests:
        raise WorkloadError(f"--model-label applies to per-model engines (Triton), not {engine}")
    live = live_model(model, hardware, dtype, tp, peak, bandwidth)
    assert live is not None
    scope = Scope(name or live.spec.name, hardware, selector, window, model_label=model_label)
    records = recording_rules(emap, scope, model_costs(live))
    alerts = alert_rules(emap, scope, tp, remedy_annotations(), timing or AlertTiming())
    base = f"rooftop:{scope.model}:{hardware}:{engine}"
    extra = {"interval": interval} if interval else {}
    groups = (
        {"name": f"{base}:record", **extra, "rules": records},
        {"name": f"{base}:alerts", **extra, "rules": alerts},
    )
    return RuleSet(engine, scope, groups)


def rules_yaml(sets: Sequence[RuleSet]) -> str:
    """One Prometheus rule file holding every set's groups."""
    groups = [g for s in sets for g in s.groups]
    names = [g["name"] for g in groups]
    if len(set(names)) != len(names):
        raise RooftopError("two rule sets share a model name, device and engine; give each its own --name")
    header = "# Prometheus rules written by `rooftop rules` (recording: rooftop:*; alerts: Rooftop*)\n"
    return header + dump({"groups": groups}) + "\n"
