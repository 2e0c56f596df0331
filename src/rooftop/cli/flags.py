"""Library errors name the input; the CLI names the option it came from.

The library does not know which command-line option carried a value, so its errors say what
is wrong with the value; ``flag`` prefixes the option's name, ``hint`` appends what to pass.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rooftop.errors import RooftopError


@contextmanager
def flag(name: str) -> Iterator[None]:
    """Errors raised inside start with ``name`` (e.g. ``--plot: x.gif: the file must end in .png``)."""
    try:
        yield
    except RooftopError as exc:
        raise type(exc)(f"{name}: {exc}") from exc


@contextmanager
def hint(text: str) -> Iterator[None]:
    """Errors raised inside end with ``; text`` (e.g. ``; pass --served-model``)."""
    try:
        yield
    except RooftopError as exc:
        raise type(exc)(f"{exc}; {text}") from exc
