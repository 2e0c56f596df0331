"""Calibration: per-operator-class efficiency against the measured roofs, fitted from one profile.

For each operator class and regime (the roof that binds it, compute or memory, from the analytic
model), efficiency e = analytic time at the measured roofs / measured time. A prediction for
another shape on the same device is then Σ over operators of (analytic roof time / e) plus the
step overhead the roofline does not model (gaps between ops, rotary, residual adds, sampling),
measured per phase. Classes or regimes the profile never saw fall back to the median efficiency
of their regime, and say so in the prediction's provenance.

One implementation fact is calibrated explicitly: transformers' DynamicCache appends K/V with
``torch.cat``, which copies the whole cache every step, so ``kv_append`` is fitted against the
cache bytes (the attention's KV read), not the bytes of the one token appended.
"""

from __future__ import annotations

import functools
import itertools
import math
import statistics
from collections import defaultdict
from typing import Any

from msgspec.structs import replace

from rooftop.core.points import RooflinePoint
from rooftop.core.roofs import Roofs
from rooftop.measure import decode_model

SCHEMA = "rooftop.calibration/1"


def op_class(label: str) -> str:
    """The measured class an analytic operator belongs to."""
    return decode_model.measured_class(label)


def _regime(bound: str) -> str:
    return "compute" if bound.startswith("compute") else "memory"


def _by_class(points: list[RooflinePoint]) -> dict[str, dict[str, Any]]:
    """Analytic points folded into measured classes: roof time, regime (of the largest part), KV read bytes."""
    out: dict[str, dict[str, Any]] = {}
    for p in points:
        entry = out.setdefault(op_class(p.label), {"time_s": 0.0, "kv_read_bytes": 0.0, "largest": -1.0})
        entry["time_s"] += p.time_s or 0.0
        entry["kv_read_bytes"] += p.traffic.kv_read_bytes if p.traffic else 0.0
        if (p.time_s or 0.0) > entry["largest"]:
            entry["largest"], entry["regime"] = p.time_s or 0.0, _regime(p.bound)
    return out


def _feature_s(cls: str, analytic: dict[str, dict[str, Any]], bandwidth: float) -> float:
    if cls == "kv_append":  # torch.cat copies the whole cache: read + write of every cached K/V byte
        kv = analytic.get("attention", {}).get("kv_read_bytes", 0.0)
        return 2.0 * float(kv) / bandwidth + float(analytic[cls]["time_s"])
    return float(analytic[cls]["time_s"])


GEMM_TOKENS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


def gemm_curve(k: int, n: int, roofs: Roofs, device: str = "cpu", budget_s: float = 0.08) -> dict[int, float]:
    """Roof efficiency of a [m, k] @ [k, n] fp32 GEMM for m in GEMM_TOKENS (small m is far below the roof)."""
    import torch

    from rooftop.measure.timing import do_bench

    w = torch.randn(k, n, device=device)
    curve = {}
    for m in GEMM_TOKENS:
        x = torch.randn(m, k, device=device)
        best = do_bench(functools.partial(torch.mm, x, w), budget_s=budget_s).best_s
        flops, bytes_ = 2.0 * m * k * n, 4.0 * (m * k + k * n + m * n)
        roof = min(roofs.peak("fp32"), roofs.bandwidth("hbm") * flops / bytes_)
        curve[m] = flops / best / roof
    return curve


def curve_at(curve: dict[str, float], tokens: float) -> float:
    """Interpolate the GEMM curve in log(tokens); clamp outside its range."""
    ms = sorted(int(m) for m in curve)
    t = min(max(tokens, ms[0]), ms[-1])
    for lo, hi in itertools.pairwise(ms):
        if lo <= t <= hi:
            frac = (math.log(t) - math.log(lo)) / (math.log(hi) - math.log(lo))
            return curve[str(lo)] + frac * (curve[str(hi)] - curve[str(lo)])
    return curve[str(ms[-1])]


def _tokens(p: RooflinePoint) -> float:
    w = p.provenance.get("workload", {})
    batch = float(w.get("batch", 1))
    if p.label == "lm_head" or w.get("phase") != "prefill":
        return batch
    return batch * (float(w.get("prompt", 1)) - float(w.get("cached_prefix", 0)))


def fit(
    phases: list[tuple[str, list[RooflinePoint], list[RooflinePoint], float]],
    bandwidth_bytes_per_s: float,
    curve: dict[int, float] | None = None,
) -> dict[str, Any]:
    """Fit from (phase, measured points, analytic points, measured step time) of one profile."""
    efficiency: dict[str, float] = {}
    overhead: dict[str, float] = {}
    tokens: dict[str, float] = {}
    for phase, measured, analytic_points, step_s in phases:
        analytic = _by_class(analytic_points)
        covered = 0.0
        for m in measured:
            if m.label not in analytic or not m.time_s:
                continue
            covered += m.time_s
            key = f"{m.label}|{analytic[m.label]['regime']}"
            efficiency[key] = _feature_s(m.label, analytic, bandwidth_bytes_per_s) / m.time_s
            tokens[key] = next((_tokens(p) for p in analytic_points if op_class(p.label) == m.label), 1.0)
        overhead[phase] = max(0.0, step_s - covered)
    return {
        "schema": SCHEMA,
        "efficiency": efficiency,
        "tokens": tokens,
        "overhead_s": overhead,
        "gemm_curve": {str(k): v for k, v in (curve or {}).items()},
    }


def _fallback(calibration: dict[str, Any], regime: str) -> float:
    values = [v for k, v in calibration["efficiency"].items() if k.endswith(f"|{regime}") and not k.startswith("kv_")]
    return statistics.median(values) if values else 1.0


def predict(
    points: list[RooflinePoint], calibration: dict[str, Any], phase: str, bandwidth_bytes_per_s: float
) -> tuple[list[RooflinePoint], float]:
    """Analytic points with calibrated times, and the calibrated step time (ops + overhead).

    Decode uses the multi-shape decode model when the calibration has one (decode_model.py);
    otherwise (and for prefill) the one-shape efficiencies.
    """
    if phase == "decode" and calibration.get("decode_model"):
        return predict_decode(points, calibration["decode_model"])
    analytic = _by_class(points)
    shares: dict[str, float] = defaultdict(float)
    out = []
    for cls, entry in analytic.items():
        key = f"{cls}|{entry['regime']}"
        eff = calibration["efficiency"].get(key)
        gemm = next((p for p in points if op_class(p.label) == cls and p.op == "gemm"), None)
        if eff and gemm is not None and calibration.get("gemm_curve"):  # the GEMM shape curve moves the class
            curve = calibration["gemm_curve"]
            fitted_at = calibration.get("tokens", {}).get(key, 1.0)
            eff *= curve_at(curve, _tokens(gemm)) / curve_at(curve, fitted_at)
        shares[cls] = _feature_s(cls, analytic, bandwidth_bytes_per_s) / (
            eff or _fallback(calibration, entry["regime"])
        )
    for p in points:
        cls = op_class(p.label)
        entry = analytic[cls]
        part = (p.time_s or 0.0) / entry["time_s"] if entry["time_s"] else 1.0 / max(1, _members(points, cls))
        key = f"{cls}|{entry['regime']}"
        out.append(
            replace(
                p,
                time_s=shares[cls] * part,
                provenance={**p.provenance, "calibrated": key if key in calibration["efficiency"] else "fallback"},
            )
        )
    step = sum(shares.values()) + float(calibration.get("overhead_s", {}).get(phase, 0.0))
    return out, step


def predict_decode(points: list[RooflinePoint], model: dict[str, Any]) -> tuple[list[RooflinePoint], float]:
    """Decode points timed by the decode model: each class's time split over its points by analytic time."""
    step, parts = decode_model.predict_step(points, model)
    analytic = _by_class(points)
    out = []
    for p in points:
        cls = op_class(p.label)
        total = analytic[cls]["time_s"]
        share = (p.time_s or 0.0) / total if total else 1.0 / max(1, _members(points, cls))
        known = cls in model["classes"] or cls == "kv_append"
        out.append(
            replace(
                p,
                time_s=parts.get(cls, 0.0) * share if known else p.time_s,
                provenance={**p.provenance, "calibrated": "decode-model" if known else "roofline"},
            )
        )
    return out, step


def _members(points: list[RooflinePoint], cls: str) -> int:
    return sum(1 for p in points if op_class(p.label) == cls)
