"""Versioned metric maps: each engine's exposed names → rooftop's canonical names.

One TOML file per engine in this folder (data, not code). Each canonical metric lists candidate
names, current first, then the names older releases used; the first one present wins, and a
deprecated name in use is reported with the name that replaced it. An engine whose request
counters are per model (Triton) names the label and its client-facing models in ``[requests]``.
A frontend that re-exports another engine's series under other prefixes (Ray's ``ray_vllm_*``)
names that engine as its ``base`` and the prefixes in ``[rename_prefix]``: it inherits the base
map's metrics and renames with the names rewritten, and its own ``[metrics]`` add or replace keys.
Without a ``base``, ``[rename_prefix]`` adds other prefixes to the map's own names (Dynamo's
frontend under its older ``nv_llm_http_service_`` prefix).
Users extend the maps without touching the code: ``ROOFTOP_ENGINES=/my/maps`` adds every
``*.toml`` of that folder, and a file whose ``engine`` is already known replaces the shipped one
(docs/serving.md).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import msgspec

from rooftop.core.packaged import load_toml
from rooftop.errors import TelemetryError
from rooftop.serving.exposition import Snapshot
from rooftop.serving.histograms import Buckets, Histogram, Sums, buckets


class MetricSpec(msgspec.Struct, frozen=True):
    """How to read one canonical metric from an engine's exposition."""

    key: str
    kind: str  # counter | gauge | histogram
    names: tuple[str, ...]
    match: dict[str, str] = msgspec.field(default_factory=dict)
    scale: float = 1.0
    mean_over_replicas: bool = False  # a share per engine (KV-cache use): the engines' mean, not their sum


class Reading:
    """What an engine map reads off a page, by sample positions: it depends on the page's series alone.

    ``scalars``: (key, the positions summed, one group per client-facing model or a single one,
    the map's scale, the replicas a per-engine share is divided by).
    """

    __slots__ = ("_sums", "deprecated", "histograms", "models", "replicas", "scalars")

    def __init__(
        self,
        scalars: list[tuple[str, tuple[tuple[int, ...], ...], float, int]],
        histograms: list[tuple[str, Buckets]],
        deprecated: tuple[str, ...],  # 'old → new (deprecated in X)' for each renamed metric still exposed
        models: tuple[str, ...],
        replicas: int,
    ) -> None:
        self.scalars, self.histograms = scalars, histograms
        self.deprecated, self.models, self.replicas = deprecated, models, replicas
        self._sums = Sums(tuple(g for _, groups, _, _ in scalars for g in groups))  # every group at once

    def scalar_values(self, values: Sequence[float]) -> dict[str, float]:
        """Each canonical counter and gauge of a page whose sample values are ``values``."""
        totals, at, out = self._sums(values), 0, {}
        for key, groups, scale, divisor in self.scalars:
            n = len(groups)
            out[key] = (totals[at] if n == 1 else float(sum(totals[at : at + n]))) * scale / divisor
            at += n
        return out

    def histogram_values(self, values: Sequence[float]) -> dict[str, Histogram]:
        """Each canonical histogram of a page whose sample values are ``values``."""
        return {key: found.histogram(values) for key, found in self.histograms}


class EngineMap(msgspec.Struct, frozen=True, dict=True):
    """One engine's map: detection prefixes, canonical metrics, renames."""

    engine: str
    prefixes: tuple[str, ...]
    versions: str
    prompt_tokens_include_cached: bool
    metrics: tuple[MetricSpec, ...]
    renames: dict[str, dict[str, str]]
    requests: dict[str, Any] = msgspec.field(default_factory=dict)
    replicas_label: str = ""  # the labels telling data-parallel engines apart, comma-separated (vLLM: engine)

    @property
    def replica_labels(self) -> tuple[str, ...]:
        """The labels whose distinct values tell engines apart (``replicas_label`` split at commas)."""
        return tuple(x.strip() for x in self.replicas_label.split(",") if x.strip())

    def replicas(self, snap: Snapshot) -> int:
        """How many data-parallel engines the page reports: distinct ``replicas_label`` values (at least 1).

        Counted on the running-requests gauge, which every engine exports, as the PromQL rule counts them.
        """
        running = next((m for m in self.metrics if m.key == "requests_running"), None)
        labels = self.replica_labels
        if not labels or running is None:
            return 1
        samples = snap.samples
        found = {
            key
            for name in running.names
            for i in snap.where(name)
            if any(key := tuple(samples[i].label(x) for x in labels))
        }
        return max(1, len(found))

    def reading(self, snap: Snapshot, model_label: str | None = None) -> Reading:
        """Which samples of ``snap`` make each canonical metric, and what else the map reads off its series.

        Kept per page layout (``snap.layout``): every scrape of one engine repeats its series with
        new values, so the samples are looked up once and each later page costs a few sums.
        """
        layout = snap.layout
        key = (EngineMap, self.engine, model_label)
        if layout is not None and (kept := layout.memo.get(key)) is not None and kept[0] is self:
            return kept[1]  # type: ignore[no-any-return]
        models = self.request_models(snap, model_label)
        replicas = self.replicas(snap)
        scalars = []
        histograms = []
        for m in self.metrics:
            if m.kind == "histogram":
                found = next((b for name in m.names if (b := buckets(snap, name, m.match)) is not None), None)
                if found is not None:
                    histograms.append((m.key, found))
                continue
            for name in _candidates(m):
                groups = self._groups(snap, name, m, models)
                if groups:
                    scalars.append((m.key, groups, m.scale, replicas if m.mean_over_replicas else 1))
                    break
        reading = Reading(scalars, histograms, tuple(self.deprecated_in_use(snap)), models, replicas)
        if layout is not None:
            layout.memo[key] = (self, reading)
        return reading

    def _groups(self, snap: Snapshot, name: str, m: MetricSpec, models: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
        """The positions summed for ``m`` read as ``name``: one group, or one per client-facing model; () if none."""
        if not models or m.key not in self.requests.get("metrics", ()):
            found = snap.where(name, m.match)
            return (tuple(found),) if found else ()
        label = self.requests["label"]
        return tuple(tuple(g) for model in models if (g := snap.where(name, {**m.match, label: model})))

    def scalars(self, snap: Snapshot, model_label: str | None = None) -> dict[str, float]:
        """Canonical counter and gauge values present in ``snap`` (summed over label sets).

        Per-model request counters (``[requests]``) are summed over the client-facing models only.
        """
        return self.reading(snap, model_label).scalar_values(snap.values)

    def request_models(self, snap: Snapshot, model_label: str | None = None) -> tuple[str, ...]:
        """The models whose request counters count client requests (empty: no per-model counters)."""
        if not self.requests:
            if model_label:
                raise TelemetryError(f"--model-label applies to per-model engines (Triton), not {self.engine}")
            return ()
        label = self.requests["label"]
        present = sorted({s.label(label) for s in snap.samples if s.name.startswith(self.prefixes) and s.label(label)})
        if model_label:
            if model_label not in present:
                where = snap.source or "exposition"
                raise TelemetryError(f"{where}: no {label}={model_label!r}; present: {', '.join(present) or 'none'}")
            return (model_label,)
        client = [m for m in present if m in self.requests.get("client_facing", ())]
        rest = [m for m in present if m not in self.requests.get("composing", ())]
        return tuple(client or rest or present)

    def histograms(self, snap: Snapshot) -> dict[str, Histogram]:
        """Canonical histograms present in ``snap``."""
        return self.reading(snap).histogram_values(snap.values)

    def kind(self, key: str) -> str:
        """Counter | gauge | histogram of a canonical key ('' when unknown)."""
        return self._kinds.get(key, "")

    @cached_property
    def _kinds(self) -> dict[str, str]:
        return {m.key: m.kind for m in reversed(self.metrics)}  # reversed: the first spec of a key wins

    def deprecated_in_use(self, snap: Snapshot) -> list[str]:
        """'old → new (deprecated in X)' for every renamed metric the engine still exposes."""
        present = snap.names()
        out = []
        for old, info in self.renames.items():
            if old in present or f"{old}_count" in present:
                out.append(f"{old} → {info['new']} (deprecated in {info.get('deprecated', '?')})")
        return out


def _candidates(m: MetricSpec) -> list[str]:
    # prometheus_client's parser exposes every counter sample with _total (Triton's and TGI's have none
    # on the wire; a Prometheus server keeps the wire name), so try both spellings.
    out: list[str] = []
    for name in m.names:
        out.append(name)
        if m.kind == "counter" and not name.endswith("_total"):
            out.append(f"{name}_total")
    return out


def _spec(key: str, raw: dict[str, Any]) -> MetricSpec:
    mean = raw.get("replicas", "sum") == "mean"
    return MetricSpec(
        key, raw["kind"], tuple(raw["names"]), dict(raw.get("match", {})), float(raw.get("scale", 1.0)), mean
    )


def _map(raw: dict[str, Any]) -> EngineMap:
    replicas = raw.get("replicas_label", "")
    return EngineMap(
        engine=raw["engine"],
        prefixes=tuple(raw["prefixes"]),
        versions=raw.get("versions", ""),
        prompt_tokens_include_cached=bool(raw.get("prompt_tokens_include_cached", True)),
        metrics=tuple(_spec(k, v) for k, v in raw["metrics"].items()),
        renames={k: dict(v) for k, v in raw.get("renames", {}).items()},
        requests=dict(raw.get("requests", {})),
        replicas_label=",".join(replicas) if isinstance(replicas, list) else str(replicas),
    )


def _load(path: Path) -> dict[str, Any]:
    """The TOML table of one of the user's map files (``ROOFTOP_ENGINES``)."""
    import tomllib

    try:
        return _named(tomllib.loads(path.read_text(encoding="utf-8")), str(path))
    except tomllib.TOMLDecodeError as exc:
        raise TelemetryError(f"{path}: not an engine map (TOMLDecodeError: {exc})") from exc


def _named(raw: dict[str, Any], where: str) -> dict[str, Any]:
    """``raw``, a map file's table, which must name its ``engine``."""
    if not isinstance(raw.get("engine"), str):
        raise TelemetryError(f'{where}: not an engine map (no engine = "name")')
    return raw


def _derived(raw: dict[str, Any], raws: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A map's metrics and renames under the prefixes of its ``[rename_prefix]``: a ``base`` map's, or its own.

    Each name that starts with an old prefix becomes one candidate per new prefix, in their order
    (``vllm:x`` → ``ray_vllm_x``, ``ray_vllm:x``). On a base, the map's own keys win over inherited ones.
    """
    base = raws.get(raw["base"]) if "base" in raw else raw
    if base is None or (base is not raw and "base" in base):
        raise ValueError(f"base {raw['base']!r} is not an engine map without a base of its own")
    if base is not raw and "rename_prefix" in base:
        base = _derived(base, raws)  # a base with other prefixes of its own: all of them
    table = {str(old): [str(p) for p in new] for old, new in raw["rename_prefix"].items()}

    def names(name: str) -> list[str]:
        old = next((o for o in table if name.startswith(o)), None)
        return [name] if old is None else [p + name[len(old) :] for p in table[old]]

    metrics = {k: {**v, "names": [n for x in v["names"] for n in names(x)]} for k, v in base["metrics"].items()}
    renames = {
        old: {**info, "new": new}
        for was, info in base.get("renames", {}).items()
        for old, new in zip(names(was), names(info["new"]), strict=False)
    }
    keys = ("versions", "prompt_tokens_include_cached", "replicas_label", "requests")
    inherited = {k: base[k] for k in keys if k in base}
    own = {k: v for k, v in raw.items() if k not in ("base", "rename_prefix")}
    if base is raw:
        return {**own, "metrics": metrics, "renames": renames}
    return {
        **inherited,
        **own,
        "metrics": {**metrics, **raw.get("metrics", {})},
        "renames": {**renames, **raw.get("renames", {})},
    }


def _build(raw: dict[str, Any], where: str, raws: dict[str, dict[str, Any]]) -> EngineMap:
    try:
        return _map(_derived(raw, raws) if "rename_prefix" in raw else raw)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise TelemetryError(f"{where}: not an engine map ({type(exc).__name__}: {exc})") from exc


@cache
def engine_maps() -> tuple[EngineMap, ...]:
    """Every engine map: the shipped ones (file-name order), then the user's (``ROOFTOP_ENGINES``)."""
    raws: dict[str, tuple[dict[str, Any], str]] = {}
    for entry in sorted(Path(__file__).parent.glob("*.toml")):
        raw = _named(load_toml(entry), entry.name)
        raws[raw["engine"]] = (raw, entry.name)
    user = os.environ.get("ROOFTOP_ENGINES")
    if user:
        if not Path(user).is_dir():
            raise TelemetryError(f"ROOFTOP_ENGINES={user}: not a folder of engine maps (*.toml)")
        for path in sorted(Path(user).glob("*.toml")):
            raw = _load(path)
            raws[raw["engine"]] = (raw, str(path))
    tables = {name: raw for name, (raw, _) in raws.items()}
    return tuple(_build(raw, where, tables) for raw, where in raws.values())


def engine_map(name: str) -> EngineMap:
    """The map of engine ``name``."""
    for m in engine_maps():
        if m.engine == name:
            return m
    raise TelemetryError(f"unknown engine {name!r}; known: {', '.join(m.engine for m in engine_maps())}")


@cache
def read_names() -> frozenset[str]:
    """Every sample name some engine map reads: a counter with and without ``_total``, a histogram's three series."""
    out: set[str] = set()
    for emap in engine_maps():
        for m in emap.metrics:
            if m.kind == "histogram":
                out.update(f"{name}{suffix}" for name in m.names for suffix in ("_bucket", "_sum", "_count"))
            else:
                out.update(_candidates(m))
    return frozenset(out)


def engine_name_regex() -> str:
    """A PromQL regex of every series name some map's prefixes cover (for ``__name__=~``)."""
    prefixes = dict.fromkeys(p for m in engine_maps() for p in m.prefixes)
    return "|".join(f"{re.escape(p)}.*" for p in prefixes)


def known_engines() -> str:
    """'llamacpp, sglang, …': the engines of the maps, as ``--engine`` takes them."""
    return ", ".join(m.engine for m in engine_maps())


def _best(counts: dict[str, int]) -> EngineMap | None:
    """The map whose prefixes cover the most of ``counts`` (name -> samples); None when none covers any."""
    best, best_hits = None, 0
    for m in engine_maps():
        hits = sum(n for name, n in counts.items() if name.startswith(m.prefixes))
        if hits > best_hits:
            best, best_hits = m, hits
    return best


def detect(snap: Snapshot) -> EngineMap:
    """The engine whose prefixes cover most of the snapshot's samples; TelemetryError when none does."""
    best = _best({name: len(found) for name, found in snap.positions.items()})  # distinct names, cached per snapshot
    if best is None:
        where = snap.source or "exposition"
        raise TelemetryError(f"{where}: no known serving engine metrics (engines: {known_engines()})")
    return best


def mismatch(snap: Snapshot, emap: EngineMap) -> str:
    """Why ``emap`` cannot read ``snap`` when no series of it carries the map's prefixes ('' when some does).

    The # TYPE families count as names too: a scrape narrowed to one engine's families still lists
    every family, so the message can say which engine the source looks like instead.
    """
    names = {name: len(found) for name, found in snap.positions.items()}
    for family in snap.types:
        names.setdefault(family, 1)
    if any(name.startswith(emap.prefixes) for name in names):
        return ""
    guess = _best(names)
    where = snap.source or "exposition"
    shown = emap.prefixes[:3]  # a map of unprefixed names (NIM) lists a dozen
    series = " or ".join(f"{p}*" for p in shown) + (" …" if len(emap.prefixes) > len(shown) else "")
    others = ", ".join(m.engine for m in engine_maps() if m.engine != emap.engine)
    instead = f"; it looks like {guess.engine}" if guess else f", nor any other known engine's ({others})"
    return f"{where}: no {emap.engine} metrics (no {series} series){instead}"
