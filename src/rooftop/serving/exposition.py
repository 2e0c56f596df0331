"""Prometheus text exposition → a Snapshot of samples, with prometheus_client's own parser."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from rooftop.errors import TelemetryError

Labels = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Sample:
    """One exposed series: full sample name (with _total/_bucket/_sum...), labels and value."""

    name: str
    labels: Labels
    value: float

    def label(self, key: str, default: str = "") -> str:
        """The value of label ``key`` (or ``default``)."""
        return dict(self.labels).get(key, default)


@dataclass(frozen=True)
class Snapshot:
    """Every sample of one scrape, taken at ``time_s`` (Unix seconds) from ``source``."""

    samples: tuple[Sample, ...]
    time_s: float
    source: str = ""
    types: Mapping[str, str] = field(default_factory=dict)  # family name -> counter|gauge|histogram|...

    def __len__(self) -> int:
        return len(self.samples)

    def names(self) -> set[str]:
        """Every sample name present."""
        return {s.name for s in self.samples}

    @cached_property
    def by_name(self) -> dict[str, list[Sample]]:
        """Samples grouped by name (built once: engine maps look up dozens of names per scrape)."""
        out: dict[str, list[Sample]] = {}
        for s in self.samples:
            out.setdefault(s.name, []).append(s)
        return out

    def series(self, name: str, match: Mapping[str, str] | None = None) -> Iterator[Sample]:
        """Samples called ``name`` whose labels include every pair of ``match``."""
        for s in self.by_name.get(name, ()):
            if not match or all(dict(s.labels).get(k) == v for k, v in match.items()):
                yield s

    def total(self, name: str, match: Mapping[str, str] | None = None) -> float | None:
        """Sum of ``name`` over its series (label sets), or None when absent."""
        values = [s.value for s in self.series(name, match)]
        return float(sum(values)) if values else None


def parse(text: str, time_s: float, source: str = "") -> Snapshot:
    """Parse exposition ``text``; raise TelemetryError naming ``source`` when it is not exposition format."""
    from rooftop.serving.fastexpo import parse_fast

    fast = parse_fast(text)
    if fast is not None and fast[0]:
        return Snapshot(tuple(Sample(*row) for row in fast[0]), time_s, source, fast[1])
    from prometheus_client.parser import text_string_to_metric_families

    samples: list[Sample] = []
    types: dict[str, str] = {}
    try:
        for family in text_string_to_metric_families(text):
            types[family.name] = family.type
            for s in family.samples:
                if s.name.endswith("_created"):  # prometheus_client's creation timestamps, not data
                    continue
                value = float(s.value)
                if math.isnan(value):
                    continue
                samples.append(Sample(s.name, tuple(sorted(s.labels.items())), value))
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        raise TelemetryError(f"{source or 'exposition'}: not Prometheus text format ({exc})") from exc
    if not samples and text.strip() and not all(ln.startswith("#") for ln in text.strip().splitlines()):
        raise TelemetryError(f"{source or 'exposition'}: no metric samples found")
    return Snapshot(tuple(samples), time_s, source, types)
