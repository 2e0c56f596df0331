"""serving/collect.py: the loops collect less often, and give the threshold back."""

from __future__ import annotations

import gc

import pytest

from rooftop.serving.collect import fewer_collections
from rooftop.serving.watch import Watcher


def test_the_threshold_is_raised_then_restored_even_on_an_error() -> None:
    before = gc.get_threshold()
    with fewer_collections(12_345):
        assert gc.get_threshold() == (12_345, *before[1:])
    assert gc.get_threshold() == before
    with pytest.raises(KeyboardInterrupt), fewer_collections():
        raise KeyboardInterrupt  # Ctrl-C in a watch
    assert gc.get_threshold() == before


def test_a_watch_polls_under_the_raised_threshold() -> None:
    seen = []
    watcher = Watcher(["x"], fetch=lambda _src: (_ for _ in ()).throw(AssertionError("not polled")))
    watcher.poll = lambda: seen.append(gc.get_threshold()[0]) or []  # type: ignore[method-assign]
    watcher.run(0.0, lambda _windows: None, polls=2)
    assert seen == [50_000, 50_000] and gc.get_threshold()[0] != 50_000
