"""Typed errors. The library raises these; the CLI turns them into one line and exit code 2."""

from __future__ import annotations

from collections.abc import Iterable


class RooftopError(Exception):
    """Base of every error rooftop raises on purpose (bad input, impossible request)."""

    exit_code = 2


class SpecError(RooftopError):
    """A model spec (config.json or preset) is missing, malformed or unsupported."""


class CatalogError(RooftopError):
    """A hardware catalog entry is unknown or malformed."""


class WorkloadError(RooftopError):
    """A workload is impossible: negative batch, unknown dtype, inverted range..."""


class TraceFormatError(RooftopError):
    """A trace or profiler export cannot be read."""


class TelemetryError(RooftopError):
    """A serving endpoint or metrics exposition cannot be read."""


class MeasurementError(RooftopError):
    """A measurement could not be taken (no device, out of memory, interrupted)."""


class ArtifactError(RooftopError):
    """A saved run artifact is unreadable or of an unknown schema."""


class ReportError(RooftopError):
    """A report, plot or comparison cannot be produced (unknown format, incomparable runs)."""


def one_line(text: str) -> str:
    """``text`` as one printable line: control characters (a newline in a file name) as escapes."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def quoted(name: str, limit: int = 60) -> str:
    """``repr(name)``, cut to ``limit`` characters with its length when longer: errors stay one short line."""
    return repr(name) if len(name) <= limit else f"{name[:limit]!r}… ({len(name):,} characters)"


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return ' (did you mean: a, b?)' for close matches of ``name``, or ''."""
    options = list(choices)
    contains = [c for c in options if name and name.lower() in c.lower()]
    import difflib  # only when a name is wrong

    close = (contains + [c for c in difflib.get_close_matches(name, options, n=3, cutoff=0.5) if c not in contains])[:3]
    return f" (did you mean: {', '.join(close)}?)" if close else ""
