"""Versioned metric maps: each engine's exposed names → rooftop's canonical names.

One TOML file per engine in this folder (data, not code). Each canonical metric lists candidate
names, current first, then the names older releases used; the first one present wins, and a
deprecated name in use is reported with the name that replaced it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from rooftop.errors import TelemetryError
from rooftop.serving.exposition import Snapshot
from rooftop.serving.histograms import Histogram, from_snapshot


@dataclass(frozen=True)
class MetricSpec:
    """How to read one canonical metric from an engine's exposition."""

    key: str
    kind: str  # counter | gauge | histogram
    names: tuple[str, ...]
    match: dict[str, str] = field(default_factory=dict)
    scale: float = 1.0


@dataclass(frozen=True)
class EngineMap:
    """One engine's map: detection prefixes, canonical metrics, renames."""

    engine: str
    prefixes: tuple[str, ...]
    versions: str
    prompt_tokens_include_cached: bool
    metrics: tuple[MetricSpec, ...]
    renames: dict[str, dict[str, str]]

    def scalars(self, snap: Snapshot) -> dict[str, float]:
        """Canonical counter and gauge values present in ``snap`` (summed over label sets)."""
        out: dict[str, float] = {}
        for m in self.metrics:
            if m.kind == "histogram":
                continue
            for name in _candidates(m):
                value = snap.total(name, m.match)
                if value is not None:
                    out[m.key] = value * m.scale
                    break
        return out

    def histograms(self, snap: Snapshot) -> dict[str, Histogram]:
        """Canonical histograms present in ``snap``."""
        out: dict[str, Histogram] = {}
        for m in self.metrics:
            if m.kind != "histogram":
                continue
            for name in m.names:
                hist = from_snapshot(snap, name, m.match)
                if hist is not None:
                    out[m.key] = hist
                    break
        return out

    def kind(self, key: str) -> str:
        """Counter | gauge | histogram of a canonical key ('' when unknown)."""
        return next((m.kind for m in self.metrics if m.key == key), "")

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
    return MetricSpec(key, raw["kind"], tuple(raw["names"]), dict(raw.get("match", {})), float(raw.get("scale", 1.0)))


@cache
def engine_maps() -> tuple[EngineMap, ...]:
    """Every shipped engine map, in file-name order."""
    folder = resources.files("rooftop.serving.engines")
    maps = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".toml"):
            continue
        raw = tomllib.loads(entry.read_text(encoding="utf-8"))
        maps.append(
            EngineMap(
                engine=raw["engine"],
                prefixes=tuple(raw["prefixes"]),
                versions=raw.get("versions", ""),
                prompt_tokens_include_cached=bool(raw.get("prompt_tokens_include_cached", True)),
                metrics=tuple(_spec(k, v) for k, v in raw["metrics"].items()),
                renames={k: dict(v) for k, v in raw.get("renames", {}).items()},
            )
        )
    return tuple(maps)


def engine_map(name: str) -> EngineMap:
    """The map of engine ``name``."""
    for m in engine_maps():
        if m.engine == name:
            return m
    raise TelemetryError(f"unknown engine {name!r}; known: {', '.join(m.engine for m in engine_maps())}")


def detect(snap: Snapshot) -> EngineMap:
    """The engine whose prefixes cover most of the snapshot's samples; TelemetryError when none does."""
    best, best_hits = None, 0
    for m in engine_maps():
        hits = sum(1 for s in snap.samples if s.name.startswith(m.prefixes))
        if hits > best_hits:
            best, best_hits = m, hits
    if best is None:
        where = snap.source or "exposition"
        raise TelemetryError(f"{where}: no known serving engine metrics (vLLM, SGLang, TGI, llama.cpp, Triton)")
    return best
