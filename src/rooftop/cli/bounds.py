"""Click types for bounded numbers: positive, finite, at most a bound (NaN and inf never pass).

``click.FloatRange`` lets NaN through (every comparison with NaN is false) and accepts inf; a
timeout of NaN, inf, 0 or -1 would wait forever or never, so every wait takes :class:`Seconds`.
"""

from __future__ import annotations

import math
from typing import Any

import click

DAY_S = 86400.0


class Positive(click.ParamType):  # type: ignore[type-arg]
    """A finite number in (0, ``max_s``] (a duration in seconds, a gamma shape...)."""

    name = "number"
    unit = ""

    def __init__(self, max_s: float = DAY_S) -> None:
        self.max_s = max_s

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float):
            number = value
        else:
            try:
                number = float(str(value).strip())
            except ValueError:
                self.fail(f"{str(value)[:40]!r} is not a number", param, ctx)
        if not (math.isfinite(number) and 0 < number <= self.max_s):
            self.fail(f"{str(value)[:40]}{self.unit}: expected a finite number in (0, {self.max_s:g}]", param, ctx)
        return number


class Seconds(Positive):
    """A duration in seconds in (0, ``max_s``]."""

    name = "seconds"
    unit = " s"
