"""Prometheus histograms: gather buckets from a snapshot, subtract windows, estimate quantiles.

Quantiles follow PromQL's ``histogram_quantile``: linear interpolation inside the bucket that
holds the rank, the lower edge of the first bucket taken as 0, and the ``+Inf`` bucket answered
with the upper edge of the last finite bucket. The error is therefore at most one bucket width.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from functools import lru_cache
from operator import sub

import msgspec

from rooftop.serving.exposition import Snapshot


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


def from_snapshot(snap: Snapshot, name: str, match: Mapping[str, str] | None = None) -> Histogram | None:
    """The histogram family ``name`` (base name, no _bucket) summed over label sets; None when absent."""
    by_edge: dict[float, float] = {}
    wanted = tuple(match.items()) if match else ()
    for s in snap.by_name.get(f"{name}_bucket", ()):  # the loop of Snapshot.series, inlined: 10 per scrape
        if wanted and not all(pair in s.labels for pair in wanted):
            continue
        edge = _edge(s.labels)
        if edge is None:
            continue
        by_edge[edge] = by_edge.get(edge, 0.0) + s.value
    count = snap.total(f"{name}_count", match)
    if not by_edge or count is None:
        return None
    total = snap.total(f"{name}_sum", match) or 0.0
    edges = sorted(by_edge)
    return Histogram(tuple(edges), tuple(by_edge[e] for e in edges), total, count)
