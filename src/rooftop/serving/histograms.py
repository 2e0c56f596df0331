"""Prometheus histograms: gather buckets from a snapshot, subtract windows, estimate quantiles.

Quantiles follow PromQL's ``histogram_quantile``: linear interpolation inside the bucket that
holds the rank, the lower edge of the first bucket taken as 0, and the ``+Inf`` bucket answered
with the upper edge of the last finite bucket. The error is therefore at most one bucket width.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from rooftop.serving.exposition import Snapshot


@dataclass(frozen=True)
class Histogram:
    """Cumulative buckets (upper edge, count), with the observations' sum and count."""

    buckets: tuple[tuple[float, float], ...]
    sum: float
    count: float

    @property
    def mean(self) -> float:
        """Sum over count (NaN when empty)."""
        return self.sum / self.count if self.count > 0 else float("nan")

    def quantile(self, q: float) -> float:
        """The q-quantile (0 ≤ q ≤ 1) by linear interpolation within buckets; NaN when empty."""
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"quantile {q} outside [0, 1]")
        if self.count <= 0 or not self.buckets:
            return float("nan")
        total = self.buckets[-1][1]
        if total <= 0:
            return float("nan")
        rank = q * total
        lower_edge, lower_count = 0.0, 0.0
        for edge, cumulative in self.buckets:
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
        pairs = list(zip(self.buckets, older.buckets))
        if (
            self.count < older.count
            or len(self.buckets) != len(older.buckets)
            or any(a != b for (a, _), (b, _) in pairs)
        ):
            return self
        return Histogram(
            tuple((edge, c - before) for (edge, c), (_, before) in pairs),
            self.sum - older.sum,
            self.count - older.count,
        )

    def quantiles(self, qs: tuple[float, ...] = (0.5, 0.9, 0.99)) -> dict[str, float]:
        """{'p50': …, 'p90': …, 'p99': …} for the given quantiles."""
        return {f"p{round(q * 100):d}": self.quantile(q) for q in qs}


@lru_cache(maxsize=4096)
def _edge(le: str) -> float:
    """A bucket's upper edge; the same few strings recur on every scrape."""
    return float(le)


def from_snapshot(snap: Snapshot, name: str, match: Mapping[str, str] | None = None) -> Histogram | None:
    """The histogram family ``name`` (base name, no _bucket) summed over label sets; None when absent."""
    by_edge: dict[float, float] = {}
    wanted = tuple(match.items()) if match else ()
    for s in snap.by_name.get(f"{name}_bucket", ()):  # the loop of Snapshot.series, inlined: 10 per scrape
        if wanted and not all(pair in s.labels for pair in wanted):
            continue
        try:
            edge = _edge(s.label("le"))
        except ValueError:
            continue
        by_edge[edge] = by_edge.get(edge, 0.0) + s.value
    count = snap.total(f"{name}_count", match)
    if not by_edge or count is None:
        return None
    total = snap.total(f"{name}_sum", match) or 0.0
    return Histogram(tuple(sorted(by_edge.items())), total, count)
