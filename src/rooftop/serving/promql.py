"""Prometheus recording rules that redo `rooftop watch`'s live accounting inside Prometheus.

Input series come from one engine map (the canonical names of ``engines/*.toml``), summed per
``job, instance`` as watch sums an endpoint's label sets. Every output is named ``rooftop:…`` and
carries the static labels ``model`` and ``device`` (so several models, each with its own rule
file and selector, share one Prometheus), plus ``phase`` where a number is per phase.

Rates are watch's: the increase between the sample at the evaluation time and the one a
window before (``x - x offset W``; a counter that went down was reset, and its new value is
the increase), over W seconds — not ``rate()``, whose extrapolation to the window's edges
would count a burst that starts and ends inside the window over the samples' span instead.

The model's cost enters as polynomials fitted to the analytic engine (``CostPoly``): per
prefill sequence of L prompt tokens ``c0 + c1·L + c2·L² + cm·(1 − r^L)``; per decode step of B
sequences at context C ``d0 + dB·B + dBC·B·C + dm·(1 − r^B)`` (the r terms are MoE expert
reads; zero for dense models), plus one term per attention bound W (sliding windows, DSA's
top-k): prefill ``cW·(m(m+1)/2 + (L − m)·W)`` with m = min(L, W), the query-key pairs of a window;
decode ``dW·B·min(C + 1, W)``; and one per attention chunk K (Llama-4): prefill
``cK·(⌊L/K⌋·K(K+1)/2 + (L mod K)(L mod K + 1)/2)``, decode ``dK·B·((C mod K) + 1)``. The shapes
are watch's: L = round(mean prompt), C = round(mean prompt + max(0, mean output − 2)/2),
B = round(max(1, requests running)).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from rooftop.errors import WorkloadError
from rooftop.serving.engines import EngineMap, MetricSpec

DEFAULT_PROMPT_TOKENS = 512.0  # watch's fallback when a window shows no prompt length
QUANTITIES = ("model_flops", "useful_bytes", "bytes")
LATENCIES = ("ttft_s", "itl_s", "tpot_s", "e2e_s", "queue_s")


class CostPoly(msgspec.Struct, frozen=True):
    """Coefficients of one quantity: constant, linear, quadratic (or B·C), MoE and window terms."""

    c0: float
    c1: float
    c2: float
    cm: float = 0.0
    windows: tuple[tuple[float, float], ...] = ()  # (bound W, its coefficient)
    chunks: tuple[tuple[float, float], ...] = ()  # (chunk K, its coefficient)


class ModelCosts(msgspec.Struct, frozen=True):
    """What the rules need of a model on a device: cost polynomials per phase and the two roofs."""

    prefill: Mapping[str, CostPoly]  # per sequence of L tokens
    decode: Mapping[str, CostPoly]  # per step of B sequences at context C
    moe_keep: float  # r = 1 − top_k/experts (0 for dense models)
    peak_flop_per_s: float
    bandwidth_bytes_per_s: float


class Scope(msgspec.Struct, frozen=True):
    """Whose series the rules read and how their outputs are labelled."""

    model: str
    device: str
    selector: str = ""  # PromQL matchers of this model's engine series, e.g. 'job="vllm-8b"'
    window: str = "1m"
    extra_labels: Mapping[str, str] = msgspec.field(default_factory=dict)
    model_label: str | None = None  # Triton: the model whose request counters count (default: as watch picks)

    @property
    def labels(self) -> dict[str, str]:
        """Static labels every output carries."""
        return {"model": self.model, "device": self.device, **self.extra_labels}

    @property
    def matchers(self) -> str:
        """`model="…",device="…"`: selects this scope's rooftop series."""
        return ", ".join(f"{k}={json.dumps(v)}" for k, v in self.labels.items())


def num(x: float) -> str:
    """A float as PromQL reads it back exactly (repr round-trips)."""
    return repr(float(x))


def own(scope: Scope, name: str, extra: str = "") -> str:
    """A rooftop series of this scope."""
    return f"{name}{{{scope.matchers}{', ' + extra if extra else ''}}}"


def _select(scope: Scope, name: str, m: MetricSpec, suffix: str = "", models: str = "") -> str:
    matchers = [scope.selector] if scope.selector else []
    matchers += [f"{k}={json.dumps(v)}" for k, v in m.match.items()]
    matchers += [models] if models else []
    return f"{name}{suffix}" + ("{" + ",".join(matchers) + "}" if matchers else "")


def request_models(emap: EngineMap, m: MetricSpec, scope: Scope) -> tuple[str, ...]:
    """Matchers of the models a per-model request counter is read from, in watch's order of preference.

    Triton counts a client request once more in each model an ensemble composes: the client-facing
    models when an instance has them, else the models that are not composing ones, else all (`or`
    keeps the first an instance has; ``engines/triton.toml [requests]``). ``("",)``: no choice to make.
    """
    req = emap.requests
    if not req or m.key not in req.get("metrics", ()):
        return ("",)
    label = req["label"]
    if scope.model_label:
        return (f"{label}={json.dumps(scope.model_label)}",)
    client, composing = ("|".join(re.escape(x) for x in req.get(k, ())) for k in ("client_facing", "composing"))
    return (f"{label}=~{json.dumps(client)}", f"{label}!~{json.dumps(composing)}", "")


def _scaled(expr: str, m: MetricSpec) -> str:
    return expr if m.scale == 1.0 else f"{num(m.scale)} * ({expr})"


def window_s(text: str) -> float:
    """A Prometheus duration ('90s', '1m', '1h30m') in seconds."""
    units = {"ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0, "y": 31536000.0}
    parts = re.findall(r"(\d+)(ms|s|m|h|d|w|y)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise WorkloadError(f"{text!r}: not a Prometheus duration (e.g. 30s, 1m, 1h30m)")
    return sum(int(n) * units[u] for n, u in parts)


def increase(scope: Scope, name: str, m: MetricSpec, suffix: str = "", models: str = "") -> str:
    """Watch's two-point increase over the window: now − one window ago; after a reset, the new value."""
    x = _select(scope, name, m, suffix, models)
    return f"sum by (job, instance) ((({x} - {x} offset {scope.window}) >= 0) or {x})"


def counter_rate(scope: Scope, m: MetricSpec, models: tuple[str, ...] = ("",)) -> str:
    """Per-second increase per instance over the window; older names, then other ``models``, as fallbacks (`or`)."""
    alts = " or ".join(increase(scope, n, m, models=k) for n in m.names for k in models)
    return _scaled(f"({alts}) / {num(window_s(scope.window))}", m)


def gauge(scope: Scope, m: MetricSpec, models: tuple[str, ...] = ("",)) -> str:
    """A gauge summed over an instance's label sets."""
    sums = (f"sum by (job, instance) ({_select(scope, n, m, models=k)})" for n in m.names for k in models)
    return _scaled(" or ".join(sums), m)


def hist_mean(scope: Scope, m: MetricSpec) -> str:
    """Mean of a histogram's observations inside the window (windows without any drop out)."""
    alts = [f"({increase(scope, n, m, '_sum')} / ({increase(scope, n, m, '_count')} > 0))" for n in m.names]
    return _scaled(" or ".join(alts), m)


def rule(record: str, expr: str, labels: Mapping[str, str]) -> dict[str, Any]:
    """One recording rule."""
    return {"record": record, "expr": expr, "labels": dict(labels)}


def replicas(emap: EngineMap, scope: Scope) -> str:
    """How many data-parallel engines an instance reports: its distinct ``replicas_label`` values.

    '' when the engine has no such label. Counted on the running-requests gauge, which every engine
    exports; a page without the label (vLLM V0) counts one. Several labels (Ray: ``WorkerId,engine``)
    count their distinct combinations.
    """
    running = next((m for m in emap.metrics if m.key == "requests_running"), None)
    if not emap.replica_labels or running is None:
        return ""
    labels = ", ".join(emap.replica_labels)
    sel = " or ".join(_select(scope, n, running) for n in running.names)
    return f"count by (job, instance) (count by (job, instance, {labels}) ({sel}))"


def input_rules(emap: EngineMap, scope: Scope) -> list[dict[str, Any]]:
    """The engine's counters as rates, gauges, and latency means, under rooftop names.

    A gauge that is a share per engine (KV-cache use) is the data-parallel engines' mean, as in watch.
    """
    out = []
    count = replicas(emap, scope)
    for m in emap.metrics:
        if m.kind == "counter":
            out.append(
                rule(f"rooftop:{m.key}:rate", counter_rate(scope, m, request_models(emap, m, scope)), scope.labels)
            )
        elif m.kind == "gauge":
            value = gauge(scope, m, request_models(emap, m, scope))
            out.append(rule(f"rooftop:{m.key}", f"({value}) / ({count})" if count and m.mean_over_replicas else value,
                            scope.labels))  # fmt: skip
        elif m.key in (*LATENCIES, "prompt_len", "output_len"):
            out.append(rule(f"rooftop:{m.key}:mean", hist_mean(scope, m), scope.labels))
    if count:  # before the shape and cost rules that divide by it (a group evaluates in order)
        out.append(rule("rooftop:replicas", count, scope.labels))
    return out


def _keys(emap: EngineMap) -> set[str]:
    return {m.key for m in emap.metrics}


def shape_rules(emap: EngineMap, scope: Scope) -> list[dict[str, Any]]:
    """Tokens per phase and the shapes (L, C, B) at which watch prices a token."""
    keys, s = _keys(emap), scope
    p, g = own(s, "rooftop:prompt_tokens:rate"), own(s, "rooftop:generation_tokens:rate")
    cached = f"({own(s, 'rooftop:cached_prompt_tokens:rate')} or {p} * 0)" if "cached_prompt_tokens" in keys else ""
    req = own(s, "rooftop:requests_finished:rate") if "requests_finished" in keys else ""

    def mean(hist: str, counter: str, default: float) -> str:
        alts = [f"{own(s, f'rooftop:{hist}:mean')} > 0"] if hist in keys else []
        if req:
            alts.append(f"({counter} / ({req} > 0)) > 0")
        return " or ".join([*(f"({a})" for a in alts), f"{p} * 0 + {num(default)}"])

    running = own(s, "rooftop:requests_running") if "requests_running" in keys else ""
    if running and replicas(emap, s):  # data-parallel engines: each decodes its share of the running requests
        running = f"({running} / {own(s, 'rooftop:replicas')})"
    batch = f"round(clamp_min({running}, 1)) or {p} * 0 + 1" if running else f"{p} * 0 + 1"
    mp, mo = own(s, "rooftop:mean_prompt_tokens"), own(s, "rooftop:mean_output_tokens")
    lab = s.labels
    return [
        rule("rooftop:prefill_tokens:rate", f"clamp_min({p} - {cached}, 0)" if cached else p, lab),
        rule("rooftop:decode_tokens:rate", f"clamp_min({g} - ({req} or {g} * 0), 0)" if req else g, lab),
        rule("rooftop:mean_prompt_tokens", mean("prompt_len", p, DEFAULT_PROMPT_TOKENS), lab),
        rule("rooftop:mean_output_tokens", mean("output_len", g, 1.0), lab),
        rule("rooftop:prefill_length", f"clamp_min(round({mp}), 1)", lab),
        rule("rooftop:decode_context", f"clamp_min(round({mp} + clamp_min({mo} - 2, 0) / 2), 0)", lab),
        rule("rooftop:decode_batch", batch, lab),
    ]


def _per_token(poly: CostPoly, x: str, y: str, r: float, prefill: bool) -> str:
    """Cost per token: prefill (c0 + cm·(1−r^L))/L + c1 + c2·L; decode (d0 + dm·(1−r^B))/B + dB + dBC·C.

    Each window W adds prefill cW·(m(m+1)/2 + (L − m)·W)/L with m = min(L, W), decode dW·min(C + 1, W);
    each chunk K prefill cK·(⌊L/K⌋·K(K+1)/2 + (L mod K)(L mod K + 1)/2)/L, decode dK·((C mod K) + 1).
    """
    head = num(poly.c0) if not poly.cm else f"({num(poly.c0)} + {num(poly.cm)} * (1 - {num(r)} ^ {x}))"
    last = f"{num(poly.c2)} * {x if prefill else y}"
    windows = ""
    for bound, coef in poly.windows:
        w = num(bound)
        if prefill:
            m = f"clamp_max({x}, {w})"
            windows += f" + {num(coef)} * ({m} * ({m} + 1) / 2 + ({x} - {m}) * {w}) / {x}"
        else:
            windows += f" + {num(coef)} * clamp_max({y} + 1, {w})"
    for size, coef in poly.chunks:
        k = num(size)
        if prefill:
            rest, whole = f"({x} % {k})", f"floor({x} / {k}) * {num(size * (size + 1) / 2)}"
            windows += f" + {num(coef)} * ({whole} + {rest} * ({rest} + 1) / 2) / {x}"
        else:
            windows += f" + {num(coef)} * ({y} % {k} + 1)"
    return f"{head} / {x} + {num(poly.c1)} + {last}{windows}"


def cost_rules(costs: ModelCosts, scope: Scope, replicated: bool = False) -> list[dict[str, Any]]:
    """Per-token costs, achieved FLOP/s and bytes/s per phase, MFU and MBU (phases and total).

    ``replicated``: the instance reports data-parallel engines (``rooftop:replicas``); MFU and MBU are
    per engine, each running its share of the tokens on its own GPUs, as watch counts them.
    """
    s, lab = scope, scope.labels
    length, ctx, batch = (own(s, f"rooftop:{n}") for n in ("prefill_length", "decode_context", "decode_batch"))
    out = []
    for q in QUANTITIES:
        pre = _per_token(costs.prefill[q], length, "", costs.moe_keep, True)
        dec = _per_token(costs.decode[q], batch, ctx, costs.moe_keep, False)
        out.append(rule(f"rooftop:prefill_{q}:per_token", pre, lab))
        out.append(rule(f"rooftop:decode_{q}:per_token", dec, lab))
    names = {"model_flops": "rooftop:model_flop_per_s", "useful_bytes": "rooftop:useful_bytes_per_s"}
    names["bytes"] = "rooftop:hbm_bytes_per_s"
    for phase in ("prefill", "decode"):
        plab = {**lab, "phase": phase}
        tokens = own(s, f"rooftop:{phase}_tokens:rate")
        out.append(rule("rooftop:tokens_per_s", tokens, plab))
        for q, record in names.items():
            out.append(rule(record, f"{tokens} * {own(s, f'rooftop:{phase}_{q}:per_token')}", plab))
    both = 'phase=~"prefill|decode"'
    per = f" / ignoring (phase) {own(s, 'rooftop:replicas')}" if replicated else ""
    for record, src, roof in (
        ("rooftop:mfu", names["model_flops"], costs.peak_flop_per_s),
        ("rooftop:mbu", names["useful_bytes"], costs.bandwidth_bytes_per_s),
    ):
        for phase in ("prefill", "decode"):
            value = f"{own(s, src, f'phase={json.dumps(phase)}')}{per} / {num(roof)}"
            out.append(rule(record, value, {**lab, "phase": phase}))
        total = f"sum without (phase) ({own(s, src, both)}){per} / {num(roof)}"
        out.append(rule(record, total, {**lab, "phase": "total"}))
    return out


def has_tokens(emap: EngineMap) -> bool:
    """Whether the engine counts prompt and generated tokens (needed for MFU/MBU)."""
    return {"prompt_tokens", "generation_tokens"} <= _keys(emap)


def recording_rules(emap: EngineMap, scope: Scope, costs: ModelCosts | None) -> list[dict[str, Any]]:
    """Every recording rule for one model on one device behind one engine, in evaluation order."""
    out = input_rules(emap, scope)
    if costs is not None and has_tokens(emap):
        out += shape_rules(emap, scope) + cost_rules(costs, scope, bool(replicas(emap, scope)))
    return out
