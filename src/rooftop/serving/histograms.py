"""Prometheus histograms: gather buckets from a snapshot, subtract windows, estimate quantiles.

Quantiles follow PromQL's ``histogram_quantile``: linear interpolation inside the bucket that
holds the rank, the lower edge of the first bucket taken as 0, and the ``+Inf`` bucket answered
with the upper edge of the last finite bucket. The error is therefore at most one bucket width.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import accumulate
from operator import sub

import msgspec

from rooftop.serving.exposition import Snapshot
from rooftop.serving.fastexpo import picker


class Histogram(msgspec.Struct, frozen=True):
    """Cumulative buckets (upper edges, counts), with the observations' sum and count.

    Edges and counts are two tuples, not pairs: a window subtracts ten histograms per source per
    poll, and two flat tuples compare and subtract in C.
    """

    edges: tuple[float, ...]
    counts: tuple[float, ...]
    sum: float
    count: float

    @classmethod
    def of(cls, buckets: Iterable[tuple[float, float]], total: float, count: float) -> Histogram:
        """From (upper edge, cumulative count) pairs."""
        pairs = tuple(buckets)
        return cls(tuple(e for e, _ in pairs), tuple(c for _, c in pairs), total, count)

    @property
    def buckets(self) -> tuple[tuple[float, float], ...]:
        """(upper edge, cumulative count) pairs."""
        return tuple(zip(self.edges, self.counts))

    @property
    def mean(self) -> float:
        """Sum over count (NaN when empty)."""
        return self.sum / self.count if self.count > 0 else float("nan")

    def quantile(self, q: float) -> float:
        """The q-quantile (0 ≤ q ≤ 1) by linear interpolation within buckets; NaN when empty."""
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"quantile {q} outside [0, 1]")
        if self.count <= 0 or not self.counts:
            return float("nan")
        total = self.counts[-1]
        if total <= 0:
            return float("nan")
        rank = q * total
        lower_edge, lower_count = 0.0, 0.0
        for edge, cumulative in zip(self.edges, self.counts):
            if cumulative >= rank:
                if math.isinf(edge):
                    return lower_edge
                if cumulative == lower_count:
                    return edge
                return lower_edge + (edge - lower_edge) * (rank - lower_count) / (cumulative - lower_count)
            lower_edge, lower_count = edge, cumulative
        return lower_edge

    def minus(self, older: Histogram) -> Histogram:
        """Observations made since ``older`` (same bucket edges); an engine restart returns self."""
        if self.count < older.count or self.edges != older.edges:
            return self
        return Histogram(
            self.edges, tuple(map(sub, self.counts, older.counts)), self.sum - older.sum, self.count - older.count
        )

    def quantiles(self, qs: tuple[float, ...] = (0.5, 0.9, 0.99)) -> dict[str, float]:
        """{'p50': …, 'p90': …, 'p99': …} for the given quantiles."""
        return {f"p{round(q * 100):d}": self.quantile(q) for q in qs}


@lru_cache(maxsize=4096)
def _edge(labels: tuple[tuple[str, str], ...]) -> float | None:
    """A bucket's upper edge from its labels (None when ``le`` is absent or not a number).

    The same few label sets recur on every scrape: one cached lookup, not a scan and a float().
    """
    for key, value in labels:
        if key == "le":
            try:
                return float(value)
            except ValueError:
                return None
    return None


_ZERO_PLUS = (0.0).__add__


class Sums:
    """The sum of a page's values at each group of positions, each added in order from 0.0 (as ``sum`` does).

    Made once per page layout and called per page: every position is picked by one ``itemgetter``
    in C, and when each group is one position (the usual page, one series each) added in C too.
    """

    __slots__ = ("_bounds", "_pick")

    def __init__(self, groups: tuple[tuple[int, ...], ...]) -> None:
        flat = [i for g in groups for i in g]
        self._pick = picker(flat)
        ends = list(accumulate(len(g) for g in groups))
        self._bounds = None if len(flat) == len(groups) else list(zip([0, *ends[:-1]], ends, strict=True))

    def __call__(self, values: Sequence[float]) -> tuple[float, ...]:
        picked = self._pick(values)
        if self._bounds is None:
            return tuple(map(_ZERO_PLUS, picked))
        return tuple(float(sum(picked[a:b])) for a, b in self._bounds)


class Buckets:
    """Where a histogram family sits in a page: per upper edge the positions of its buckets, and of _count, _sum.

    It depends on the page's series alone, so an engine map keeps it per page layout and a repeated
    page's histogram costs one pick of its values (:meth:`histogram`), not a scan of its samples.
    """

    __slots__ = ("_sums", "edges", "has_sum")

    def __init__(
        self,
        edges: tuple[float, ...],
        at_edge: tuple[tuple[int, ...], ...],
        count_at: tuple[int, ...],
        sum_at: tuple[int, ...],
    ) -> None:
        self.edges, self.has_sum = edges, bool(sum_at)
        self._sums = Sums((*at_edge, count_at, *((sum_at,) if sum_at else ())))

    def histogram(self, values: Sequence[float]) -> Histogram:
        """The histogram of a page of these positions whose sample values are ``values``."""
        found, n = self._sums(values), len(self.edges)
        return Histogram(self.edges, found[:n], found[n + 1] if self.has_sum else 0.0, found[n])


def buckets(snap: Snapshot, name: str, match: Mapping[str, str] | None = None) -> Buckets | None:
    """Where the histogram family ``name`` (base name, no _bucket) sits, summed over label sets; None when absent."""
    by_edge: dict[float, list[int]] = {}
    samples = snap.samples
    for i in snap.where(f"{name}_bucket", match):
        edge = _edge(samples[i].labels)
        if edge is not None:
            by_edge.setdefault(edge, []).append(i)
    count_at = snap.where(f"{name}_count", match)
    if not by_edge or not count_at:
        return None
    edges = sorted(by_edge)
    at_edge = tuple(tuple(by_edge[e]) for e in edges)
    return Buckets(tuple(edges), at_edge, tuple(count_at), tuple(snap.where(f"{name}_sum", match)))
