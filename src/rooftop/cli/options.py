"""Shared option parsing: integer lists and ranges, dtypes, roofs from flags."""

from __future__ import annotations

import re

import click

from rooftop.errors import WorkloadError


def parse_int_list(text: str, name: str) -> list[int]:
    """'1,8,64' -> [1, 8, 64]; '1-64' -> powers of two from 1 to 64 (end included); '4k' = 4096."""
    values: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        match = re.fullmatch(r"(\d+[kK]?)\s*-\s*(\d+[kK]?)", part)
        if match:
            low, high = (_int(g, name) for g in match.groups())
            if low > high:
                raise WorkloadError(f"--{name} range {part!r} is inverted (start > end)")
            value = low
            while value < high:
                values.append(value)
                value *= 2
            values.append(high)
        else:
            values.append(_int(part, name))
    if not values:
        raise WorkloadError(f"--{name} is empty")
    return sorted(set(values))


def _int(text: str, name: str) -> int:
    try:
        value = int(text[:-1]) * 1024 if text[-1:] in "kK" else int(text)
    except ValueError:
        raise WorkloadError(f"--{name}: {text!r} is not an integer") from None
    if value < 0:
        raise WorkloadError(f"--{name}: {value} is negative")
    return value


class IntList(click.ParamType):  # type: ignore[type-arg]
    """A click type for parse_int_list; errors stay one line."""

    name = "LIST"

    def __init__(self, option: str) -> None:
        self.option = option

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> list[int]:
        if isinstance(value, list):
            return value
        try:
            return parse_int_list(str(value), self.option)
        except WorkloadError as exc:
            self.fail(str(exc).removeprefix(f"--{self.option}: "), param, ctx)
