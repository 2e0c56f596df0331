"""Prometheus text exposition → a Snapshot of samples, with prometheus_client's own parser."""

from __future__ import annotations

import math
from collections.abc import Container, Iterator, Mapping, Sequence
from functools import cached_property
from itertools import repeat
from operator import itemgetter
from typing import Any, NamedTuple

import msgspec

from rooftop.errors import TelemetryError, one_line
from rooftop.serving.fastexpo import Layout, parse_fast

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


class Samples(Sequence[Sample]):
    """A page's samples kept as its columns (names, labels, values), made into Samples when first read.

    A watch reads a repeated page through its layout and the engine map's kept reading, which
    need the values alone: the samples of such a page are never made. Compares equal to the
    tuple of its samples.
    """

    __slots__ = ("_columns", "_made")

    def __init__(self, names: Sequence[str], labels: Sequence[Labels], values: Sequence[float]) -> None:
        self._columns = (names, labels, values)
        self._made: tuple[Sample, ...] | None = None

    @property
    def values(self) -> Sequence[float]:
        """Every sample's value, in order (the column: no samples made)."""
        return self._columns[2]

    def _all(self) -> tuple[Sample, ...]:
        if self._made is None:  # Sample(*row) without NamedTuple's Python-level __new__: the rows are 3-tuples
            self._made = tuple(map(tuple.__new__, repeat(Sample), zip(*self._columns, strict=True)))
        return self._made

    def __len__(self) -> int:
        return len(self._columns[2])

    def __getitem__(self, index: Any) -> Any:
        return self._all()[index]

    def __iter__(self) -> Iterator[Sample]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        return self._all() == (other._all() if isinstance(other, Samples) else other)

    __hash__ = None  # type: ignore[assignment]  # as a list: equal to a tuple, so not hashed like one

    def __repr__(self) -> str:
        return repr(self._all())


class Snapshot(msgspec.Struct, frozen=True, dict=True):
    """Every sample of one scrape, taken at ``time_s`` (Unix seconds) from ``source``."""

    samples: Sequence[Sample]
    time_s: float
    source: str = ""
    types: Mapping[str, str] = msgspec.field(default_factory=dict)  # family name -> counter|gauge|histogram|...
    layout: Layout | None = None  # shared by the snapshots of pages of one shape (fastexpo.Layout); None: unknown

    def __len__(self) -> int:
        return len(self.samples)

    def names(self) -> set[str]:
        """Every sample name present."""
        return {s.name for s in self.samples}

    @cached_property
    def values(self) -> Sequence[float]:
        """Every sample's value, in order."""
        samples = self.samples
        return samples.values if isinstance(samples, Samples) else list(map(itemgetter(2), samples))

    @cached_property
    def positions(self) -> dict[str, list[int]]:
        """Each sample name's positions in ``samples`` (built once: engine maps look up dozens of names per scrape)."""
        out: dict[str, list[int]] = {}
        for i, s in enumerate(self.samples):
            out.setdefault(s.name, []).append(i)
        return out

    def where(self, name: str, match: Mapping[str, str] | None = None) -> list[int]:
        """The positions of the samples :meth:`series` yields."""
        found = self.positions.get(name, [])
        if not match:
            return found
        samples, pairs = self.samples, match.items()
        return [i for i in found if all(pair in samples[i].labels for pair in pairs)]

    def series(self, name: str, match: Mapping[str, str] | None = None) -> Iterator[Sample]:
        """Samples called ``name`` whose labels include every pair of ``match``."""
        samples = self.samples
        for i in self.where(name, match):
            yield samples[i]

    def total(self, name: str, match: Mapping[str, str] | None = None) -> float | None:
        """Sum of ``name`` over its series (label sets), or None when absent."""
        values = self.values
        return float(sum([values[i] for i in found])) if (found := self.where(name, match)) else None


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
    page = parse_fast(text, families, source)
    if page is not None and page.values:
        names, labels, values, kinds, layout = page
        rows = Samples(names, labels, values)
        if min(values) < 0.0 or max(values) == math.inf:  # the same checks as the parser's path (NaN is out)
            kept = [k for r in rows if (k := checked(r, source, judged)) is not None]
            return Snapshot(unique(kept, source), time_s, source, kinds)  # no layout: samples were dropped
        distinct = layout is not None and layout.distinct  # else unique() says which series is doubled
        return Snapshot(rows if distinct else unique(list(rows), source), time_s, source, kinds, layout)
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
