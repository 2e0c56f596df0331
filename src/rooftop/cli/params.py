"""Constrained click types for numbers given on the command line: finite, positive, bounded.

click's ``FloatRange`` lets ``nan`` through (every comparison with NaN is false) and ``IntRange``
without a maximum lets ``2**63`` reach numpy (where it wraps negative). These types close both
gaps; each bound is named here once, far above any real workload and below every overflow.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import click

from rooftop.core.atomic import check_target
from rooftop.errors import ReportError, WorkloadError
from rooftop.units import MAX_TOKENS as MAX_TOKENS  # prompt, context and output tokens per request: 16,777,216

MAX_SEQUENCES = MAX_TOKENS  # batch (sequences per step)
MAX_TP = 1 << 10  # tensor-parallel degree
MAX_STEPS = 1 << 20  # profiled decode steps
DAY_S = 86400.0  # the longest wait a duration option takes by default


def usable_cores() -> int:
    """CPU cores this process may run on (affinity and cgroup-limited where the OS says so)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


class FiniteFloatRange(click.FloatRange):
    """``click.FloatRange`` that also refuses ``nan`` and ``inf``."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


class Threads(click.ParamType):  # type: ignore[type-arg]
    """A thread count from 1 to this machine's usable cores (more oversubscribes and can crash BLAS)."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        number = click.INT.convert(value, param, ctx)
        cores = usable_cores()
        if not 1 <= number <= cores:
            self.fail(f"{number} is not in 1..{cores} (the cores this machine gives rooftop).", param, ctx)
        return int(number)


class Rate(click.ParamType):  # type: ignore[type-arg]
    """A quantity parsed by a ``rooftop.units`` parser (finite, > 0, bounded there); returns SI float."""

    def __init__(self, parse: Callable[[str], float], name: str) -> None:
        self.parse = parse
        self.name = name

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float):
            return value
        try:
            return self.parse(str(value))
        except WorkloadError as exc:
            self.fail(str(exc), param, ctx)


class OutputFile(click.ParamType):  # type: ignore[type-arg]
    """A file to write, checked while the arguments are parsed, before any work.

    Suffix, folder, permission, not a device; the write itself is atomic (``write_atomic``).
    """

    name = "file"

    def __init__(self, suffixes: tuple[str, ...] = ()) -> None:
        self.suffixes = suffixes

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            check_target(str(value), ReportError, self.suffixes)
        except ReportError as exc:
            self.fail(str(exc), param, ctx)
        return str(value)


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
