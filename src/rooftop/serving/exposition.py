"""Prometheus text exposition → a Snapshot of samples, with prometheus_client's own parser."""

from __future__ import annotations

import math
from collections.abc import Container, Iterator, Mapping
from functools import cached_property
from typing import NamedTuple

import msgspec

from rooftop.errors import TelemetryError, one_line

Labels = tuple[tuple[str, str], ...]


class Sample(NamedTuple):
    """One exposed series: full sample name (with _total/_bucket/_sum...), labels and value.

    A named tuple, not a frozen dataclass: a watch of 100 endpoints builds ~40,000 a second, and
    a dataclass's ``__init__`` was 0.37 ms of each 50 kB vLLM scrape.
    """

    name: str
    labels: Labels
    value: float

    def label(self, key: str, default: str = "") -> str:
        """The value of label ``key`` (or ``default``)."""
        for k, v in self.labels:  # a few pairs: a scan beats building a dict per call
            if k == key:
                return v
        return default


class Snapshot(msgspec.Struct, frozen=True, dict=True):
    """Every sample of one scrape, taken at ``time_s`` (Unix seconds) from ``source``."""

    samples: tuple[Sample, ...]
    time_s: float
    source: str = ""
    types: Mapping[str, str] = msgspec.field(default_factory=dict)  # family name -> counter|gauge|histogram|...

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
        found = self.by_name.get(name, ())
        if not match:
            yield from found
            return
        for s in found:
            if all(pair in s.labels for pair in match.items()):
                yield s

    def total(self, name: str, match: Mapping[str, str] | None = None) -> float | None:
        """Sum of ``name`` over its series (label sets), or None when absent."""
        values = [s.value for s in self.series(name, match)]
        return float(sum(values)) if values else None


def parse(
    text: str,
    time_s: float,
    source: str = "",
    families: frozenset[str] | None = None,
    judged: Container[str] = frozenset(),
) -> Snapshot:
    """Parse exposition ``text``; raise TelemetryError naming ``source`` when it is not exposition format.

    ``families``: the metric families wanted (others may be left out; see fastexpo.parse_fast).
    ``judged``: the sample names whose negative or infinite value refuses the page (the sources
    pass the names the engine maps read, ``engines.read_names``); see :func:`checked`.
    """
    from rooftop.serving.fastexpo import parse_fast

    fast = parse_fast(text, families)
    if fast is not None and fast[0]:
        new = tuple.__new__  # Sample(*row) without NamedTuple's Python-level __new__: rows are 3-tuples
        rows: list[Sample] = [new(Sample, row) for row in fast[0]]
        if not all(0.0 <= r.value < math.inf for r in rows):  # the same checks as the parser's path
            rows = [kept for r in rows if (kept := checked(r, source, judged)) is not None]
        return Snapshot(unique(rows, source), time_s, source, fast[1])
    from prometheus_client.parser import text_string_to_metric_families

    samples: list[Sample] = []
    types: dict[str, str] = {}
    try:
        for family in text_string_to_metric_families(text):
            types[family.name] = family.type
            for s in family.samples:
                if s.name.endswith("_created"):  # prometheus_client's creation timestamps, not data
                    continue
                sample = checked(Sample(s.name, tuple(sorted(s.labels.items())), float(s.value)), source, judged)
                if sample is not None:
                    samples.append(sample)
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        where, what = _bad_line(text), one_line(str(exc)[:120])
        detail = f"{where}: {what}" if what and where else where or what or type(exc).__name__
        raise TelemetryError(f"{source or 'exposition'}: not Prometheus text format ({detail})") from exc
    if not samples and text.strip() and not all(ln.startswith("#") for ln in text.strip().splitlines()):
        raise TelemetryError(f"{source or 'exposition'}: no metric samples found")
    return Snapshot(unique(samples, source), time_s, source, types)


def _bad_line(text: str, max_lines: int = 20000) -> str:
    """'line N: <text>' of the first line the parser refuses on its own (the parser does not say), or ''."""
    from prometheus_client.parser import text_string_to_metric_families

    for i, line in enumerate(text.splitlines()[:max_lines], 1):
        try:
            for _ in text_string_to_metric_families(line + "\n"):
                pass
        except (ValueError, TypeError, IndexError, KeyError):
            return f"line {i}: {one_line(repr(line[:60]))}"
    return ""


def _series(sample: Sample) -> str:
    labels = ",".join(f'{k}="{v[:40]}"' for k, v in sample.labels)
    return one_line(f"{sample.name[:80]}{{{labels[:160]}}}" if labels else sample.name[:80])


def checked(sample: Sample, source: str, judged: Container[str]) -> Sample | None:
    """``sample`` when its value is usable; None for NaN (no value) and for a bad value of a series not ``judged``.

    The series the engine maps read count tokens, requests, seconds and ratios: a negative or
    infinite value of one of those (``judged``) is refused in one line naming the series. Any
    other series is not rooftop's to judge: vLLM V0 exports ``vllm:gpu_prefix_cache_hit_rate`` as
    -1 when prefix caching is off (its default), and such a value is dropped, not a reason to
    refuse the page.
    """
    value = sample.value
    if 0.0 <= value < math.inf:
        return sample
    if math.isnan(value) or sample.name not in judged:
        return None
    raise TelemetryError(f"{source or 'exposition'}: {_series(sample)} = {value:g}: not a finite non-negative value")


def unique(samples: list[Sample], source: str) -> tuple[Sample, ...]:
    """The samples, refusing a series given twice (summing the two would report, e.g., a KV cache 120 % full)."""
    if len({(s.name, s.labels) for s in samples}) == len(samples):
        return tuple(samples)
    seen: set[tuple[str, Labels]] = set()
    for s in samples:
        key = (s.name, s.labels)
        if key in seen:
            raise TelemetryError(f"{source or 'exposition'}: series {_series(s)} appears twice")
        seen.add(key)
    return tuple(samples)
