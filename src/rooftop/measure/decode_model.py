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
from typing import Any

import msgspec
from msgspec.structs import replace

from rooftop.core.points import RooflinePoint
from rooftop.errors import MeasurementError

SCHEMA = "rooftop.decode-model/1"
FRESH_PAGES_BYTES = 32 * 2**20  # glibc DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
GEMV_MAX_TOKENS = 2  # first guess of the route: ≤ 2 rows as GEMVs, then refined by the fit
OUTLIER_FACTOR, OUTLIER_MIN = 2.5, 0.10
OWN_FIT = ("attention",)  # classes with their own linear fit; smaller ones go to the residual
# score, softmax and value of every window kind (``attn_score``, ``attn_score_swa``, ``softmax_chunk``…)
ATTENTION_PARTS = ("attn_score", "softmax", "attn_value")


def measured_class(label: str) -> str:
    """The class a profile measures an analytic operator as: attention parts are one class."""
    return "attention" if label.split("_swa")[0].split("_chunk")[0] in ATTENTION_PARTS else label


class Sample(msgspec.Struct, frozen=True):
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
        cls = measured_class(p.label)
        e = classes.setdefault(cls, {"weight_s": 0.0, "bytes_s": 0.0, "flops_s": 0.0, "gemm": 0.0})
        e["weight_s"] += (p.traffic.weight_bytes if p.traffic else 0.0) / bytes_per_s
        e["bytes_s"] += p.bytes / bytes_per_s
        e["flops_s"] += p.flops / peak_flop_per_s
        e["gemm"] = max(e["gemm"], 1.0 if p.op == "gemm" else 0.0)
        kv = p.traffic.kv_read_bytes if p.traffic else 0.0
        kv_bytes += kv
        if p.label.startswith("attn_score") and p.count:  # K of every layer: one K tensor per layer
            per_tensor = max(per_tensor, kv / p.count)
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


class GemmModel(msgspec.Struct, frozen=True):
    """The GEMM classes' shared model: ``min(gemv · tokens · weight_s, packed · weight_s + compute · flops_s)``.

    A route the fit never saw is None (JSON keys ``v``, ``p``, ``k``).
    """

    gemv: float | None  # × the weight read, per row run as a GEMV
    packed: float | None  # × the weight read, once, for the packed route
    compute: float | None  # × the compute-roof time of the packed route

    def time_s(self, f: dict[str, float]) -> float:
        """The faster of the two routes at features ``f`` (0 when the fit knows neither)."""
        routes = []
        if self.gemv is not None:
            routes.append(self.gemv * f["tokens"] * f["weight_s"])
        if self.packed is not None:
            routes.append(self.packed * f["weight_s"] + (self.compute or 0.0) * f["flops_s"])
        return min(routes) if routes else 0.0

    def route(self, f: dict[str, float]) -> str:
        """'v' (GEMV per row) or 'p' (packed) — whichever is faster at ``f``."""
        if self.packed is None:
            return "v"
        if self.gemv is None:
            return "p"
        return "v" if self.gemv * f["tokens"] * f["weight_s"] <= self.time_s(f) else "p"

    def to_dict(self) -> dict[str, Any]:
        """The cached JSON form (schema rooftop.decode-model/1)."""
        return {"kind": "gemm", "v": self.gemv, "p": self.packed, "k": self.compute}


class LinearModel(msgspec.Struct, frozen=True):
    """A class timed as ``const_s + bytes · bytes_s + flops · flops_s`` (attention)."""

    const_s: float
    bytes: float  # × the memory-roof time of its bytes
    flops: float  # × the compute-roof time of its FLOPs

    def time_s(self, f: dict[str, float]) -> float:
        """Predicted time at features ``f``."""
        return float(sum(c * x for c, x in zip((self.const_s, self.bytes, self.flops), _linear_row(f), strict=True)))

    def to_dict(self) -> dict[str, Any]:
        """The cached JSON form (``coef`` = [const_s, bytes, flops])."""
        return {"kind": "linear", "coef": [self.const_s, self.bytes, self.flops]}


ClassModel = GemmModel | LinearModel


class Residual(msgspec.Struct, frozen=True):
    """The unprofiled step minus the classes: ``const_s + per_token_s · tokens + kv · kv_s + fresh · fresh_s``."""

    const_s: float
    per_token_s: float
    kv: float
    fresh: float


class DecodeModel(msgspec.Struct, frozen=True):
    """The fitted decode model; ``to_dict``/``from_dict`` keep the cached JSON of rooftop.decode-model/1."""

    classes: dict[str, ClassModel]
    residual: Residual
    peak_flop_per_s: float
    bytes_per_s: float
    profiler_factor: float = 1.0
    shapes: tuple[tuple[float, int | None], ...] = ()  # (tokens, context) of each training shape
    train_step_s: tuple[tuple[float, float], ...] = ()  # (measured, fitted) per training shape
    train_abs_error: tuple[float, ...] = ()
    left_out: tuple[tuple[float, int | None, float], ...] | None = None  # (tokens, context, measured step)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form stored in the calibration cache."""
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "classes": {c: m.to_dict() for c, m in self.classes.items()},
            "peak_flop_per_s": self.peak_flop_per_s,
            "bytes_per_s": self.bytes_per_s,
            "profiler_factor": self.profiler_factor,
            "residual": msgspec.structs.asdict(self.residual),
            "shapes": [list(s) for s in self.shapes],
            "train_step_s": [list(s) for s in self.train_step_s],
            "train_abs_error": list(self.train_abs_error),
        }
        if self.left_out is not None:
            out["left_out"] = [list(s) for s in self.left_out]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DecodeModel:
        """Read the cached form back (a cache of another schema is refused with one clear line)."""
        if data.get("schema", SCHEMA) != SCHEMA:
            raise MeasurementError(
                f"cached decode model of schema {data.get('schema')!r}, this rooftop reads {SCHEMA}; profile again"
            )
        r = data["residual"]
        left = data.get("left_out")
        return cls(
            classes={c: _class_from_dict(m) for c, m in data["classes"].items()},
            residual=Residual(r["const_s"], r.get("per_token_s", 0.0), r["kv"], r["fresh"]),
            peak_flop_per_s=data["peak_flop_per_s"],
            bytes_per_s=data["bytes_per_s"],
            profiler_factor=data.get("profiler_factor", 1.0),
            shapes=tuple((s[0], s[1]) for s in data.get("shapes", [])),
            train_step_s=tuple((s[0], s[1]) for s in data.get("train_step_s", [])),
            train_abs_error=tuple(data.get("train_abs_error", [])),
            left_out=None if left is None else tuple((s[0], s[1], s[2]) for s in left),
        )

    @classmethod
    def of(cls, model: DecodeModel | dict[str, Any]) -> DecodeModel:
        """``model`` itself, or read from its cached JSON form."""
        return model if isinstance(model, DecodeModel) else cls.from_dict(model)


def _class_from_dict(m: dict[str, Any]) -> ClassModel:
    if m["kind"] == "gemm":
        return GemmModel(m.get("v"), m.get("p"), m.get("k"))
    const, per_byte, per_flop = m["coef"]
    return LinearModel(const, per_byte, per_flop)


def gemm_time_s(f: dict[str, float], params: GemmModel | dict[str, Any]) -> float:
    """The faster of the two routes (GEMV per row, or pack + compute) the fit knows."""
    gemm = params if isinstance(params, GemmModel) else GemmModel(params.get("v"), params.get("p"), params.get("k"))
    return gemm.time_s(f)


def _fit_gemm(pairs: list[tuple[dict[str, float], float]]) -> GemmModel:
    route = ["v" if f["tokens"] <= GEMV_MAX_TOKENS else "p" for f, _ in pairs]
    model = GemmModel(None, None, None)
    for _ in range(5):
        vs = [t / (f["tokens"] * f["weight_s"]) for (f, t), r in zip(pairs, route) if r == "v" and f["weight_s"]]
        packed = [(f, t) for (f, t), r in zip(pairs, route) if r == "p"]
        model = GemmModel(statistics.median(vs) if vs else None, None, None)
        if packed:
            rows = [[f["weight_s"], f["flops_s"]] for f, _ in packed]
            p, k = nnls(rows, [t for _, t in packed], _inverse(t for _, t in packed))
            model = replace(model, packed=p, compute=k)
        new = [model.route(f) for f, _ in pairs]
        if new == route:
            break
        route = new
    return model


def _linear_row(f: dict[str, float]) -> list[float]:
    return [1.0, f["bytes_s"], f["flops_s"]]


def class_time_s(cls: str, feats: dict[str, Any], model: DecodeModel | dict[str, Any]) -> float:
    """Predicted time of one class at a shape (0 for a class the model never saw)."""
    params = DecodeModel.of(model).classes.get(cls)
    if params is None:
        return 0.0
    return params.time_s(feats["classes"].get(cls) or _empty(feats))


def fit(samples: Sequence[Sample], peak_flop_per_s: float, bytes_per_s: float) -> DecodeModel:
    """Fit, then refit once without the shapes the first fit misses by far (a noisy neighbour's burst).

    A shape is left out when its step is off by more than 2.5× the median error and more than 10 %;
    at most a fifth of the shapes, and they are listed under ``left_out``.
    """
    model = _fit_once(samples, peak_flop_per_s, bytes_per_s)
    errors = model.train_abs_error
    bar = max(OUTLIER_FACTOR * statistics.median(errors), OUTLIER_MIN)
    worst = sorted(range(len(samples)), key=lambda i: -errors[i])[: len(samples) // 5]
    drop = {i for i in worst if errors[i] > bar}
    if not drop:
        return model
    kept = [s for i, s in enumerate(samples) if i not in drop]
    refit = _fit_once(kept, peak_flop_per_s, bytes_per_s)
    left = tuple((*model.shapes[i], model.train_step_s[i][0]) for i in sorted(drop))
    return replace(refit, left_out=left)


def profiler_factor(samples: Sequence[Sample]) -> float:
    """Median over shapes of unprofiled ÷ profiled step time (1 when unknown): the profiler's slowdown."""
    ratios = [s.step_s / s.profiled_step_s for s in samples if s.profiled_step_s]
    return min(1.0, statistics.median(ratios)) if ratios else 1.0


def _fit_once(samples: Sequence[Sample], peak_flop_per_s: float, bytes_per_s: float) -> DecodeModel:
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
    classes: dict[str, ClassModel] = {c: shared for c in gemms}
    for cls in sorted(measured & set(OWN_FIT)):
        rows = [_linear_row(f["classes"].get(cls, _empty(f))) for f in feats]
        times = [factor * s.class_times_s.get(cls, 0.0) for s in samples]
        classes[cls] = LinearModel(*nnls(rows, times, _inverse(times)))
    rest = [s.step_s - _classes_s(f, classes) for s, f in zip(samples, feats, strict=True)]
    # errors relative to the whole step: a short step's residual matters as much as a long one's
    residual = Residual(*nnls([_residual_row(f) for f in feats], rest, _inverse(s.step_s for s in samples)))
    shapes = tuple((f["tokens"], s.points[0].provenance.get("workload", {}).get("context") if s.points else None)
                   for s, f in zip(samples, feats, strict=True))  # fmt: skip
    model = DecodeModel(classes, residual, peak_flop_per_s, bytes_per_s, factor, shapes)
    fitted = [predict_step(s.points, model)[0] for s in samples]
    return replace(
        model,
        train_step_s=tuple((s.step_s, p) for p, s in zip(fitted, samples, strict=True)),  # measured, fitted
        train_abs_error=tuple(abs(p / s.step_s - 1.0) for p, s in zip(fitted, samples, strict=True) if s.step_s),
    )


def _inverse(times: Iterable[float]) -> list[float]:
    return [1.0 / t if t > 0 else 0.0 for t in times]


def _empty(f: dict[str, Any]) -> dict[str, float]:
    return {"tokens": f["tokens"], "weight_s": 0.0, "bytes_s": 0.0, "flops_s": 0.0}


def _classes_s(f: dict[str, Any], classes: dict[str, ClassModel]) -> float:
    return sum(m.time_s(f["classes"].get(c) or _empty(f)) for c, m in classes.items())


def _residual_row(f: dict[str, Any]) -> list[float]:
    return [1.0, f["tokens"], f["kv_s"], f["fresh_s"]]


def predict_step(
    points: Sequence[RooflinePoint], model: DecodeModel | dict[str, Any]
) -> tuple[float, dict[str, float]]:
    """The predicted decode step time and its parts by class (``kv_append`` and ``overhead`` included).

    ``model`` is a DecodeModel or its cached JSON form.
    """
    m = DecodeModel.of(model)
    f = features(points, m.peak_flop_per_s, m.bytes_per_s)
    parts = {cls: c.time_s(f["classes"].get(cls) or _empty(f)) for cls, c in m.classes.items()}
    r = m.residual
    parts["kv_append"] = r.kv * f["kv_s"] + r.fresh * f["fresh_s"]
    parts["overhead"] = r.const_s + r.per_token_s * f["tokens"]
    return sum(parts.values()), parts
