"""A per-operator-class model of the decode step, fitted by least squares on a few profiled shapes.

One profiled shape cannot separate what is fixed from what scales with batch or context, so the
profile times decode steps at a small sweep of (batch, context) shapes (``rooftop profile`` does
this after the main profile) and fits, per operator class, against the analytic model's roof
times at the measured roofs (``weight_s`` = weight bytes ÷ bandwidth, ``bytes_s``, ``flops_s`` =
FLOPs ÷ peak):

* GEMMs (q/k/v/o, gate/up/down, lm_head), one model shared by all of them:
  ``min(v · tokens · weight_s, p · weight_s + k · flops_s)``.
  Two routes a BLAS takes: a few rows are run as GEMVs that each stream the weight (time grows
  with every token), more rows pack the weight once and then run at a compute efficiency. On
  this CPU (MKL, one thread) the switch sits near 4 tokens; on a GPU the first route is simply
  never the faster one.
* attention: ``c + m · bytes_s + k · flops_s`` (a fixed per-step cost for its launches and
  dispatch, then memory and compute at fitted efficiencies).
* the rest — norms, activations, rotary, sampling, KV-cache append, gaps between ops — from the
  *unprofiled* step time:
  ``step − Σ classes = c₀ + t · tokens + a · kv_s + f · fresh_s``, where
  ``kv_s`` is the whole KV cache ÷ bandwidth (transformers' DynamicCache re-copies it with
  ``torch.cat`` every step) and ``fresh_s`` the same for caches whose per-layer tensors are at
  least 32 MiB: glibc maps blocks that large from fresh pages (its mmap threshold never rises
  above 32 MiB), so each step also pays page faults on them — once the heap holds no free space
  they could be carved from, which steptime.settle_allocator ensures before every shape.

Every coefficient is non-negative, so no prediction falls below the sum of its operators. Few
parameters on many observations (every GEMM class at every shape) keep the fit stable when a
shared machine makes single timings noisy.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rooftop.core.points import RooflinePoint

SCHEMA = "rooftop.decode-model/1"
FRESH_PAGES_BYTES = 32 * 2**20  # glibc DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
GEMV_MAX_TOKENS = 2  # first guess of the route: ≤ 2 rows as GEMVs, then refined by the fit
OUTLIER_FACTOR, OUTLIER_MIN = 2.5, 0.10
OWN_FIT = ("attention",)  # classes with their own linear fit; smaller ones go to the residual
ATTENTION_PARTS = {"attn_score": "attention", "softmax": "attention", "attn_value": "attention"}


@dataclass(frozen=True)
class Sample:
    """One decode shape: analytic points at the measured roofs, measured class times, unprofiled step."""

    points: Sequence[RooflinePoint]
    class_times_s: dict[str, float]
    step_s: float
    profiled_step_s: float | None = None  # the same step under the profiler, when known


def features(points: Sequence[RooflinePoint], peak_flop_per_s: float, bytes_per_s: float) -> dict[str, Any]:
    """Per class: tokens, weight_s, bytes_s, flops_s, gemm?; and the step's kv_s and fresh_s."""
    classes: dict[str, dict[str, float]] = {}
    kv_bytes = per_tensor = 0.0
    tokens = 1.0
    for p in points:
        tokens = float(p.provenance.get("workload", {}).get("batch", tokens))
        cls = ATTENTION_PARTS.get(p.label, p.label)
        e = classes.setdefault(cls, {"weight_s": 0.0, "bytes_s": 0.0, "flops_s": 0.0, "gemm": 0.0})
        e["weight_s"] += (p.traffic.weight_bytes if p.traffic else 0.0) / bytes_per_s
        e["bytes_s"] += p.bytes / bytes_per_s
        e["flops_s"] += p.flops / peak_flop_per_s
        e["gemm"] = max(e["gemm"], 1.0 if p.op == "gemm" else 0.0)
        kv = p.traffic.kv_read_bytes if p.traffic else 0.0
        kv_bytes += kv
        if p.label == "attn_score" and p.count:  # K of every layer: one K tensor per layer
            per_tensor = kv / p.count
    for e in classes.values():
        e["tokens"] = tokens
    fresh = kv_bytes if per_tensor >= FRESH_PAGES_BYTES else 0.0
    return {"classes": classes, "tokens": tokens, "kv_s": kv_bytes / bytes_per_s, "fresh_s": fresh / bytes_per_s}


def nnls(rows: Sequence[Sequence[float]], y: Sequence[float], weights: Sequence[float] | None = None) -> list[float]:
    """Non-negative least squares by trying every set of active columns (small problems only).

    ``weights`` multiply each row and its target: 1 / time makes the errors relative, so that a
    long step does not outweigh a short one.
    """
    import numpy as np

    a, b = np.asarray(rows, dtype=float), np.asarray(y, dtype=float)
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        a, b = a * w[:, None], b * w
    n = a.shape[1]
    best, best_x = float("inf"), np.zeros(n)
    for k in range(n + 1):
        for cols in itertools.combinations(range(n), k):
            x = np.zeros(n)
            if cols:
                sol = np.linalg.lstsq(a[:, list(cols)], b, rcond=None)[0]
                if (sol < 0).any():
                    continue
                x[list(cols)] = sol
            err = float(((a @ x - b) ** 2).sum())
            if err < best - 1e-18:
                best, best_x = err, x
    return [float(v) for v in best_x]


def gemm_time_s(f: dict[str, float], params: dict[str, float]) -> float:
    """The faster of the two routes (GEMV per row, or pack + compute) the fit knows."""
    routes = []
    if params.get("v") is not None:
        routes.append(params["v"] * f["tokens"] * f["weight_s"])
    if params.get("p") is not None:
        routes.append(params["p"] * f["weight_s"] + params["k"] * f["flops_s"])
    return min(routes) if routes else 0.0


def _fit_gemm(pairs: list[tuple[dict[str, float], float]]) -> dict[str, Any]:
    route = ["v" if f["tokens"] <= GEMV_MAX_TOKENS else "p" for f, _ in pairs]
    params: dict[str, Any] = {}
    for _ in range(5):
        vs = [t / (f["tokens"] * f["weight_s"]) for (f, t), r in zip(pairs, route) if r == "v" and f["weight_s"]]
        packed = [(f, t) for (f, t), r in zip(pairs, route) if r == "p"]
        params = {"kind": "gemm", "v": statistics.median(vs) if vs else None, "p": None, "k": None}
        if packed:
            rows = [[f["weight_s"], f["flops_s"]] for f, _ in packed]
            params["p"], params["k"] = nnls(rows, [t for _, t in packed], _inverse(t for _, t in packed))
        new = [_route(f, params) for f, _ in pairs]
        if new == route:
            break
        route = new
    return params


def _route(f: dict[str, float], params: dict[str, Any]) -> str:
    if params.get("p") is None:
        return "v"
    if params.get("v") is None:
        return "p"
    return (
        "v"
        if params["v"] * f["tokens"] * f["weight_s"] <= params["p"] * f["weight_s"] + params["k"] * f["flops_s"]
        else "p"
    )


def _linear_row(f: dict[str, float]) -> list[float]:
    return [1.0, f["bytes_s"], f["flops_s"]]


def class_time_s(cls: str, feats: dict[str, Any], model: dict[str, Any]) -> float:
    """Predicted time of one class at a shape (0 for a class the model never saw)."""
    params = model["classes"].get(cls)
    if params is None:
        return 0.0
    f = feats["classes"].get(cls) or _empty(feats)
    if params["kind"] == "gemm":
        return gemm_time_s(f, params)
    return float(sum(c * x for c, x in zip(params["coef"], _linear_row(f), strict=True)))


def fit(samples: Sequence[Sample], peak_flop_per_s: float, bytes_per_s: float) -> dict[str, Any]:
    """Fit, then refit once without the shapes the first fit misses by far (a noisy neighbour's burst).

    A shape is left out when its step is off by more than 2.5× the median error and more than 10 %;
    at most a fifth of the shapes, and they are listed under ``left_out``.
    """
    model = _fit_once(samples, peak_flop_per_s, bytes_per_s)
    errors = model["train_abs_error"]
    bar = max(OUTLIER_FACTOR * statistics.median(errors), OUTLIER_MIN)
    worst = sorted(range(len(samples)), key=lambda i: -errors[i])[: len(samples) // 5]
    drop = {i for i in worst if errors[i] > bar}
    if not drop:
        return model
    kept = [s for i, s in enumerate(samples) if i not in drop]
    refit = _fit_once(kept, peak_flop_per_s, bytes_per_s)
    refit["left_out"] = [model["shapes"][i] + [model["train_step_s"][i][0]] for i in sorted(drop)]
    return refit


def profiler_factor(samples: Sequence[Sample]) -> float:
    """Median over shapes of unprofiled ÷ profiled step time (1 when unknown): the profiler's slowdown."""
    ratios = [s.step_s / s.profiled_step_s for s in samples if s.profiled_step_s]
    return min(1.0, statistics.median(ratios)) if ratios else 1.0


def _fit_once(samples: Sequence[Sample], peak_flop_per_s: float, bytes_per_s: float) -> dict[str, Any]:
    """Fit GEMMs (one shared route model) and attention on class times, then the unprofiled step's residual.

    Class times are first scaled by ``profiler_factor`` (one figure for all shapes, so that one noisy
    profiled step does not bend its shape's classes). The residual holds the small ops, the KV copy
    and the gaps between ops, measured without the profiler.
    """
    feats = [features(s.points, peak_flop_per_s, bytes_per_s) for s in samples]
    factor = profiler_factor(samples)
    measured = {c for s in samples for c in s.class_times_s}
    gemms = sorted(c for c in measured if any(f["classes"].get(c, {}).get("gemm") for f in feats))
    pairs = [
        (f["classes"][c], factor * s.class_times_s.get(c, 0.0))
        for s, f in zip(samples, feats, strict=True)
        for c in gemms
        if c in f["classes"]
    ]
    shared = _fit_gemm(pairs)
    model: dict[str, Any] = {
        "schema": SCHEMA,
        "classes": {c: shared for c in gemms},
        "peak_flop_per_s": peak_flop_per_s,
        "bytes_per_s": bytes_per_s,
        "profiler_factor": factor,
    }
    for cls in sorted(measured & set(OWN_FIT)):
        rows = [_linear_row(f["classes"].get(cls, _empty(f))) for f in feats]
        times = [factor * s.class_times_s.get(cls, 0.0) for s in samples]
        coef = nnls(rows, times, _inverse(times))
        model["classes"][cls] = {"kind": "linear", "coef": coef}
    rest = [s.step_s - _classes_s(f, model) for s, f in zip(samples, feats, strict=True)]
    # errors relative to the whole step: a short step's residual matters as much as a long one's
    const, per_token, kv, fresh = nnls([_residual_row(f) for f in feats], rest, _inverse(s.step_s for s in samples))
    model["residual"] = {"const_s": const, "per_token_s": per_token, "kv": kv, "fresh": fresh}
    model["shapes"] = [[f["tokens"], s.points[0].provenance.get("workload", {}).get("context") if s.points else None]
                       for s, f in zip(samples, feats, strict=True)]  # fmt: skip
    fitted = [predict_step(s.points, model)[0] for s in samples]
    model["train_step_s"] = [[s.step_s, p] for p, s in zip(fitted, samples, strict=True)]  # measured, fitted
    model["train_abs_error"] = [abs(p / s.step_s - 1.0) for p, s in zip(fitted, samples, strict=True) if s.step_s]
    return model


def _inverse(times: Iterable[float]) -> list[float]:
    return [1.0 / t if t > 0 else 0.0 for t in times]


def _empty(f: dict[str, Any]) -> dict[str, float]:
    return {"tokens": f["tokens"], "weight_s": 0.0, "bytes_s": 0.0, "flops_s": 0.0}


def _classes_s(f: dict[str, Any], model: dict[str, Any]) -> float:
    return sum(class_time_s(c, f, model) for c in model["classes"])


def _residual_row(f: dict[str, Any]) -> list[float]:
    return [1.0, f["tokens"], f["kv_s"], f["fresh_s"]]


def predict_step(points: Sequence[RooflinePoint], model: dict[str, Any]) -> tuple[float, dict[str, float]]:
    """The predicted decode step time and its parts by class (``kv_append`` and ``overhead`` included)."""
    f = features(points, model["peak_flop_per_s"], model["bytes_per_s"])
    parts = {cls: class_time_s(cls, f, model) for cls in model["classes"]}
    r = model["residual"]
    parts["kv_append"] = r["kv"] * f["kv_s"] + r["fresh"] * f["fresh_s"]
    parts["overhead"] = r["const_s"] + r.get("per_token_s", 0.0) * f["tokens"]
    return sum(parts.values()), parts
