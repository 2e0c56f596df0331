"""Interval algebra: hand-checked cases and Hypothesis properties."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rooftop.ingest import intervals as iv


def test_merge_and_gaps() -> None:
    # [0,10) [5,12) [20,25) [25,30) -> [0,12) [20,30): busy 12 + 10 = 22, one gap 12..20
    m = iv.merge([0, 5, 20, 25], [10, 12, 25, 30])
    assert m[0].tolist() == [0, 20] and m[1].tolist() == [12, 30]
    assert iv.length(m) == 22
    g = iv.gaps(m)
    assert g[0].tolist() == [12] and g[1].tolist() == [20]


def test_overlap() -> None:
    a = iv.merge([0, 20], [10, 30])  # [0,10) [20,30)
    b = iv.merge([5], [25])  # [5,25): overlaps 5 + 5 = 10
    assert iv.overlap(a, b) == 10
    assert iv.overlap(a, iv.merge([], [])) == 0


spans = st.lists(st.tuples(st.integers(0, 1000), st.integers(0, 100)), max_size=40)


def _set(pairs: list[tuple[int, int]]) -> iv.Merged:
    return iv.merge([s for s, _ in pairs], [s + d for s, d in pairs])


def _brute(pairs: list[tuple[int, int]]) -> set[int]:
    return {t for s, d in pairs for t in range(s, s + d)}


@given(spans, spans)
def test_properties_match_unit_grid(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> None:
    ma, mb = _set(a), _set(b)
    assert iv.length(ma) == len(_brute(a))
    assert iv.overlap(ma, mb) == len(_brute(a) & _brute(b)) == iv.overlap(mb, ma)
    assert iv.length(iv.union(ma, mb)) == len(_brute(a) | _brute(b))
    if ma[0].size:
        assert np.all(ma[0][1:] > ma[1][:-1])  # disjoint, sorted, non-touching
