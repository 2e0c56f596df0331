"""Counter increases and rates between snapshots, with Prometheus-style reset detection.

A counter that goes down was reset (the engine restarted): the increase over that interval is
the new value itself (everything counted since the restart), never a negative number.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import msgspec


def _since(before: float, after: float) -> float:
    """What a counter counted between two readings: after a reset (it went down), the new value itself."""
    return after if after < before else after - before


def increase(values: Sequence[float]) -> tuple[float, int]:
    """Total increase over successive counter readings, and how many resets were seen."""
    total, resets = 0.0, 0
    for before, after in itertools.pairwise(values):
        resets += after < before
        total += _since(before, after)
    return total, resets


class Rate(msgspec.Struct, frozen=True):
    """A counter's increase over an interval, and the rate per second."""

    delta: float
    interval_s: float
    reset: bool

    @property
    def per_s(self) -> float:
        """Increase per second (NaN for an empty interval)."""
        return self.delta / self.interval_s if self.interval_s > 0 else float("nan")


def rate(before: float, after: float, interval_s: float) -> Rate:
    """The rate of one counter between two readings ``interval_s`` apart."""
    return Rate(_since(before, after), interval_s, after < before)  # not increase([...]): ~10 a window
