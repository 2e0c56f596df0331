"""report.layout: the widest column set that fits, names shortened last, numbers and units kept together."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from rooftop.report.layout import (
    Column,
    TrimmedLines,
    choose_layout,
    fit_table,
    natural_width,
    shorten_name,
    wrap,
)

WIDE = [Column("name", justify="left", shorten=True), Column("a"), Column("b"), Column("c")]
NARROW = [Column("name", justify="left", shorten=True), Column("a")]
ROWS = [{"name": "q_proj", "a": "1.07 GB", "b": "321 µs", "c": "7.0%"}]


def _text(renderable: object, width: int) -> str:
    console = Console(record=True, width=width)
    console.print(renderable)
    return console.export_text()


def test_natural_width_and_choice():
    # widths: name 6, a 7, b 6, c 4 = 23 + 3 gaps × 2 = 29
    assert natural_width(WIDE, ROWS) == 29
    assert choose_layout([WIDE, NARROW], ROWS, 29) == WIDE
    assert choose_layout([WIDE, NARROW], ROWS, 28) == NARROW  # 6 + 7 + 2 = 15


def test_empty_columns_are_left_out():
    rows = [{"name": "k", "a": "1 ms", "b": "", "c": ""}]
    assert [c.key for c in choose_layout([WIDE], rows, 80)] == ["name", "a"]


def test_long_names_are_shortened_never_on_a_digit():
    assert shorten_name("gemvx<bfloat16_t>", 10) == "gemvx<bfl…"
    assert shorten_name("kernel<int, 128, 4>", 14) == "kernel<int, …"  # '1' would read as a value
    assert shorten_name("at::native::bfloat1…", 40) == "at::native::bfloat…"  # cut upstream on a digit
    rows = [{"name": "x" * 60, "a": "1.07 GB"}]
    out = _text(fit_table([NARROW], rows, 30), 30)
    assert "1.07 GB" in out and max(len(line) for line in out.splitlines()) <= 30


def test_wrap_keeps_a_number_with_its_unit():
    text = "the step moved 15.3 GB in 4.56 ms at 3.35 TB/s"
    lines = wrap(text, 24).splitlines()
    assert lines == ["the step moved 15.3 GB", "in 4.56 ms at 3.35 TB/s"]
    assert wrap("intensity 1.05 FLOP/B", 15).splitlines() == ["intensity", "1.05 FLOP/B"]


def test_narrower_than_any_layout_gives_one_record_per_row():
    # at 40 columns rich would crush the columns (the op names vanished, '537' for 537 M): records instead
    rows = [{"name": "attn_norm", "a": "786 kB", "b": "235 ns", "c": "memory:activations"}]
    out = _text(fit_table([WIDE], rows, 30), 30)
    assert [line.rstrip() for line in out.splitlines()] == [
        "attn_norm: a 786 kB · b 235 ns",
        "  · c memory:activations",
    ]


def test_a_pipe_gets_no_padding_blanks():
    # rich pads each table line to the table's width; into a file the blanks before every newline go,
    # spaces ending a write wait for the next one (kept when text follows them, dropped before "\n")
    out = io.StringIO()
    trimmed = TrimmedLines(out)
    trimmed.write("op     time   \nembed  10 µs  ")
    assert out.getvalue() == "op     time\nembed  10 µs"
    trimmed.write("\nq  ")
    trimmed.write("x\n")
    trimmed.flush()
    assert out.getvalue() == "op     time\nembed  10 µs\nq  x\n"
    console = Console(width=40, file=TrimmedLines(out := io.StringIO()))
    table = Table("name", "value", box=None)
    table.add_row("a", "1")
    table.add_row("a much longer name", "22")
    console.print(table)
    lines = out.getvalue().splitlines()
    assert lines == [
        " name                value",
        " a                   1",
        " a much longer name  22",
    ]  # left-justified
    assert all(line == line.rstrip() for line in lines)
