"""Interval algebra on numpy arrays: union, length, pairwise overlap, gaps. Units are the caller's.

Sets of intervals are held merged: two sorted arrays ``(starts, ends)`` with ``starts[i+1] > ends[i]``.
Every function is vectorised (sort + cumulative maximum + searchsorted), so a trace of a million
kernels costs a few sorts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

F64 = np.ndarray[Any, np.dtype[np.float64]]
Merged = tuple[F64, F64]


def merge(starts: ArrayLike, ends: ArrayLike) -> Merged:
    """Union of intervals [s, e) as disjoint sorted intervals; touching intervals join."""
    s = np.asarray(starts, dtype=np.float64)
    e = np.asarray(ends, dtype=np.float64)
    if s.size == 0:
        return np.zeros(0), np.zeros(0)
    order = np.argsort(s, kind="stable")
    s, e = s[order], e[order]
    reach = np.maximum.accumulate(e)
    new = np.empty(s.size, dtype=bool)
    new[0] = True
    new[1:] = s[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:] - 1, s.size - 1)
    return s[first], reach[last]


def length(m: Merged) -> float:
    """Total length of a merged set."""
    return float(np.sum(m[1] - m[0]))


def coverage(m: Merged, x: ArrayLike) -> F64:
    """Length of ``m`` ∩ (-inf, x] for each x (a non-decreasing function of x)."""
    s, e = m
    xs = np.asarray(x, dtype=np.float64)
    if s.size == 0:
        return np.zeros_like(xs)
    before = np.concatenate(([0.0], np.cumsum(e - s)))
    idx = np.searchsorted(s, xs, side="right") - 1
    safe = np.clip(idx, 0, None)
    partial = np.clip(np.minimum(xs, e[safe]) - s[safe], 0.0, None)
    return np.where(idx >= 0, before[safe] + partial, 0.0)


def overlap(a: Merged, b: Merged) -> float:
    """Length of a ∩ b for two merged sets."""
    if a[0].size == 0 or b[0].size == 0:
        return 0.0
    return float(np.sum(coverage(b, a[1]) - coverage(b, a[0])))


def union(a: Merged, b: Merged) -> Merged:
    """Union of two merged sets, merged."""
    return merge(np.concatenate((a[0], b[0])), np.concatenate((a[1], b[1])))


def gaps(m: Merged) -> Merged:
    """The holes between consecutive intervals of a merged set (empty when fewer than two)."""
    return m[1][:-1], m[0][1:]
