"""core/collect.py: short commands and serving loops collect less often, and give the threshold back."""

from __future__ import annotations

import gc

import pytest

from rooftop.core.collect import fewer_collections


def test_the_threshold_is_raised_then_restored_even_on_an_error() -> None:
    before = gc.get_threshold()
    with fewer_collections(12_345):
        assert gc.get_threshold() == (12_345, *before[1:])
    assert gc.get_threshold() == before
    with pytest.raises(KeyboardInterrupt), fewer_collections():
        raise KeyboardInterrupt  # Ctrl-C in a watch
    assert gc.get_threshold() == before
