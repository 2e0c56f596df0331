"""Terminal tables that fit: column sets from wide to narrow, cells that are never cut.

A table is described once as rows of named cells and a list of layouts (column sets), widest
first. ``fit_table`` picks the first layout whose natural width fits the console; numbers and
their units are rendered ``no_wrap`` so they are never split across lines or cut with '…'.
Only a column marked ``wrap`` (an operator or kernel name) may fold when even the narrowest
layout is too wide. Piped output is laid out for a file: see ``output_width``.
"""

from __future__ import annotations

import functools
import io
import os
import re
import sys
import textwrap
from collections.abc import Mapping, Sequence
from typing import TextIO, cast

import msgspec
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

Cell = str | Text

FILE_WIDTH = 200  # piped or redirected output: a file has no width, tables keep every column
GAP = 2  # rich puts one space of padding on each side between columns (box=None, pad_edge=False)


class Column(msgspec.Struct, frozen=True):
    """A table column: the key of its cells, the header, alignment, and whether it may wrap."""

    key: str
    header: str = ""
    justify: str = "right"
    wrap: bool = False
    shorten: bool = False  # a name: cut with a trailing '…' to what the other columns leave

    @property
    def title(self) -> str:
        return self.header or self.key


def num(value: float) -> str:
    """Three significant digits, never an exponent: 0.667, 3.99, 585, 1,020, 12,500 (∞ and — as such)."""
    if value != value:
        return "—"
    if value in (float("inf"), float("-inf")):
        return "∞"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def output_width() -> int | None:
    """COLUMNS when set, the terminal's width on a terminal, else ``FILE_WIDTH`` (a pipe or a file)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = sys.stdout
    if stream is not None and hasattr(stream, "isatty") and stream.isatty():
        return None
    return FILE_WIDTH


class TrimmedLines(io.TextIOBase):
    """A pipe or a file without the blanks rich pads every table line with to the table's width.

    Spaces before a newline are dropped; spaces at the end of a write are held until the next
    write shows whether a newline follows them (written as they are on ``flush``).
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.held = ""

    def write(self, text: str) -> int:
        body = _TRAILING.sub("\n", self.held + text)
        kept = body.rstrip(" ")
        self.held = body[len(kept) :]
        self.stream.write(kept)
        return len(text)

    def flush(self) -> None:
        if self.held:
            self.stream.write(self.held)
            self.held = ""
        self.stream.flush()


_TRAILING = re.compile(r" +\n")


def make_console(stderr: bool = False) -> Console:
    """A console sized by ``output_width`` (a pipe is not squeezed to 80 columns, nor padded with blanks)."""
    stream = sys.stderr if stderr else sys.stdout
    if stream is not None and hasattr(stream, "isatty") and not stream.isatty():
        return Console(width=output_width(), file=cast(TextIO, TrimmedLines(stream)))
    return Console(width=output_width(), stderr=stderr)


def _cell_len(cell: Cell) -> int:
    """Terminal cells of the widest line of ``cell`` (a string is read as rich markup)."""
    return _widest(cell.plain) if isinstance(cell, Text) else _markup_len(cell)


@functools.lru_cache(maxsize=4096)  # a table's layouts measure each cell several times
def _markup_len(cell: str) -> int:
    return _widest(Text.from_markup(cell).plain)


def _widest(plain: str) -> int:
    return max((Text(line).cell_len for line in plain.splitlines()), default=0)


SHORTEST_NAME = 40  # a layout fits when its names, shortened to this, leave room for every other column


def natural_width(columns: Sequence[Column], rows: Sequence[Mapping[str, Cell]], cap_names: bool = False) -> int:
    """The width the table takes when no cell wraps (names counted at most SHORTEST_NAME with ``cap_names``)."""
    widths = [max([len(c.title), *(_cell_len(r.get(c.key, "")) for r in rows)]) for c in columns]
    if cap_names:
        widths = [min(w, SHORTEST_NAME) if c.shorten else w for c, w in zip(columns, widths, strict=True)]
    return sum(widths) + GAP * max(len(columns) - 1, 0)


def choose_layout(
    layouts: Sequence[Sequence[Column]], rows: Sequence[Mapping[str, Cell]], width: int
) -> Sequence[Column]:
    """The widest layout that fits ``width`` (the narrowest one when none does); empty columns are left out."""
    filled = [[c for c in columns if any(_cell_len(r.get(c.key, "")) for r in rows)] or list(columns)
              for columns in layouts]  # fmt: skip
    for columns in filled:
        if natural_width(columns, rows, cap_names=True) <= width:
            return columns
    return filled[-1]


def fit_table(
    layouts: Sequence[Sequence[Column]],
    rows: Sequence[Mapping[str, Cell]],
    width: int,
    title: str = "",
    row_styles: Sequence[str | None] = (),
) -> RenderableType:
    """A rich table of ``rows`` in the widest of ``layouts`` that fits ``width`` columns, under ``title``."""
    columns = choose_layout(layouts, rows, width)
    if natural_width(columns, rows, cap_names=True) > width:  # narrower than any layout: one record per row
        return records(columns, rows, width, title)
    rows = _shorten(columns, rows, width)
    table = Table(header_style="bold", box=None, pad_edge=False)
    for c in columns:
        table.add_column(c.title, justify=c.justify, no_wrap=not c.wrap, overflow="fold")  # type: ignore[arg-type]
    for i, r in enumerate(rows):
        style = row_styles[i] if i < len(row_styles) else None
        table.add_row(*(r.get(c.key, "") for c in columns), style=style)
    return Group(Text(wrap(title, width), style="italic"), table) if title else table


# a number followed by its unit: the space between them never breaks a line
_UNIT = re.compile(
    r"(\d)[ ](?=(?:[PTGMk]?(?:FLOP/s|FLOP/B|FLOPs?|B/s|B)|[KMGT]iB|ms|µs|ns|s|min|×|%|tok/s|req/s|"
    r"tokens/s|tokens|W|GHz|MHz)(?![\w/]))"
)
NBSP = "\u00a0"


def wrap(text: str, width: int, indent: str = "", subsequent: str | None = None) -> str:
    """Wrap ``text`` at spaces to ``width`` columns, never between a number and its unit."""
    glued = _UNIT.sub(lambda m: m.group(1) + NBSP, text)
    lines = textwrap.wrap(
        glued,
        width=max(width, 20),
        initial_indent=indent,
        subsequent_indent=indent if subsequent is None else subsequent,
        break_long_words=True,  # only a word longer than a line (a path) is cut; a number and its unit never are
        break_on_hyphens=False,
    )
    return "\n".join(lines).replace(NBSP, " ")


def shorten_name(name: str, room: int) -> str:
    """``name`` cut to ``room`` characters with a trailing '…', never ending on a digit.

    A cut number reads like a value; a name already cut upstream ('…bfloat1…') loses its trailing digits too.
    """
    if len(name) <= room and not name.endswith("…"):
        return name
    cut = name[: room - 1] if len(name) > room else name.removesuffix("…")
    return re.sub(r"\d[\d.,]*$", "", cut) + "…"


def _shorten(columns: Sequence[Column], rows: Sequence[Mapping[str, Cell]], width: int) -> Sequence[Mapping[str, Cell]]:
    """Cut the cells of the ``shorten`` column (names) so the table fits ``width``."""
    over = natural_width(columns, rows) - width
    names = [c.key for c in columns if c.shorten]
    if over <= 0 or not names:
        return rows
    key = names[0]
    longest = max(_cell_len(r.get(key, "")) for r in rows)
    room = max(longest - over, 16)
    out: list[Mapping[str, Cell]] = []
    for r in rows:
        cell = r.get(key, "")
        plain = cell.plain if isinstance(cell, Text) else Text.from_markup(cell).plain
        if len(plain) > room:
            out.append({**r, key: Text(shorten_name(plain, room))})
        else:
            out.append(r)
    return out


def records(columns: Sequence[Column], rows: Sequence[Mapping[str, Cell]], width: int, title: str = "") -> Group:
    """Each row as 'name: header value · header value', wrapped at spaces (numbers stay whole)."""
    lines = [Text(wrap(title, width), style="italic")] if title else []
    for r in rows:
        plain = {c.key: (v.plain if isinstance(v, Text) else Text.from_markup(v).plain) for c, v in
                 ((c, r.get(c.key, "")) for c in columns)}  # fmt: skip
        first, rest = columns[0], columns[1:]
        # each 'header value' pair is kept on one line (NBSP), the pairs wrap between them
        fields = " · ".join(
            f"{c.title} {plain[c.key].strip()}".replace(" ", NBSP) for c in rest if plain[c.key].strip()
        )
        lines.append(Text(wrap(f"{plain[first.key]}: {fields}", width, "", "  ")))
    return Group(*lines)


def pairs_table(rows: Sequence[tuple[str, Cell]], width: int) -> Table:
    """A two-column key/value table; string values wrap without splitting a number from its unit."""
    key_width = max((len(k) for k, _ in rows), default=0)
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(no_wrap=True)
    for key, value in rows:
        cell = Text(wrap(value, width - key_width - GAP)) if isinstance(value, str) else value
        table.add_row(key, cell)
    return table
