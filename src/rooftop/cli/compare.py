"""`rooftop compare`: what changed between two saved runs, op by op and in totals."""

from __future__ import annotations

import math
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from rooftop.api.compare import Comparison, compare
from rooftop.cli.flags import hint
from rooftop.cli.params import OutputFile
from rooftop.core import artifact
from rooftop.core.jsonenc import dumps
from rooftop.report.layout import Cell, Column, fit_table, make_console, num
from rooftop.report.tables import print_line
from rooftop.units import seconds, si


def _ratio(before: float | None, after: float | None) -> str:
    if before is None or after is None or not before:
        return "—"
    return f"×{num(after / before)}"


def _num(value: float | None, unit: str) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return seconds(value) if unit == "s" else si(value, unit)


TOTALS = {  # field -> (label, unit); unit "%" = a share, "" = a plain number
    "time_s": ("step time", "s"),
    "tokens_per_s": ("tokens/s", "tok/s"),
    "flops": ("FLOPs", "FLOP"),
    "bytes": ("bytes", "B"),
    "intensity": ("intensity", "FLOP/B"),
    "mfu": ("MFU", "%"),
    "hfu": ("HFU", "%"),
    "mbu": ("MBU", "%"),
}


def _fmt(value: float | None, unit: str) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    if unit == "%":
        return f"{value:.1%}"
    if unit in ("tok/s", "FLOP/B"):
        return f"{value:,.1f} {unit}" if unit == "tok/s" else f"{num(value)} {unit}"
    return _num(value, unit) if unit else f"{value:,.4g}"


TOTAL_COLUMNS = [Column("total", justify="left"), Column("before"), Column("after"), Column("change")]
OP_LAYOUTS = [
    [Column("op", justify="left", shorten=True), Column("time_b", "time"), Column("time_a", "→"),
     Column("change"), Column("bytes_b", "bytes"), Column("bytes_a", "→ "), Column("int_b", "FLOP/B"),
     Column("int_a", " →"), Column("bound", justify="left")],
    [Column("op", justify="left", shorten=True), Column("time_b", "time"), Column("time_a", "→"),
     Column("change"), Column("bytes_b", "bytes"), Column("bytes_a", "→ "), Column("bound", justify="left")],
    [Column("op", justify="left", shorten=True), Column("time_b", "time"), Column("time_a", "→"),
     Column("change"), Column("bound", justify="left")],
]  # fmt: skip


def _op_row(o: Any) -> dict[str, Cell]:
    bound = f"{o.before_bound} → {o.after_bound}" if o.bound_changed else (o.after_bound or o.before_bound)
    return {
        "op": Text(o.name),
        "time_b": _num(o.before_time_s, "s"),
        "time_a": _num(o.after_time_s, "s"),
        "change": _ratio(o.before_time_s, o.after_time_s),
        "bytes_b": _num(o.before_bytes, "B"),
        "bytes_a": _num(o.after_bytes, "B"),
        "int_b": "—" if o.before_intensity is None else num(o.before_intensity),
        "int_a": "—" if o.after_intensity is None else num(o.after_intensity),
        "bound": Text(bound),
    }


def render_comparison(cmp: Comparison, console: Console) -> None:
    """Totals then ops, each with before, after and the ratio; bound changes highlighted."""
    width = console.width
    print_line(console, f"before: {cmp.before}  after: {cmp.after}", "dim")
    for warning in cmp.warnings:
        print_line(console, f"forced: {warning}", "yellow")
    for r in cmp.results:
        console.print()
        print_line(console, " · ".join(f"{k} {v}" for k, v in r.key.items()), "bold")
        rows: list[dict[str, Cell]] = []
        for name, (b, a) in r.totals.items():
            label, unit = TOTALS.get(name, (name, ""))
            rows.append({"total": label, "before": _fmt(b, unit), "after": _fmt(a, unit), "change": _ratio(b, a)})
        console.print(fit_table([TOTAL_COLUMNS], rows, width))
        console.print()
        styles = ["bold yellow" if o.bound_changed else None for o in r.ops]
        console.print(fit_table(OP_LAYOUTS, [_op_row(o) for o in r.ops], width, row_styles=styles))
    for item in cmp.unpaired:
        print_line(console, f"not paired: {item}", "dim")


@click.command()
@click.argument("before", type=click.Path(dir_okay=False))
@click.argument("after", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Compare even when the models or the hardware differ.")
@click.option("--json", "as_json", is_flag=True, help="Print the rooftop.compare/1 JSON instead of tables.")
@click.option("--report", type=OutputFile(), help="Also write the diff as an offline HTML page.")
def compare_command(before: str, after: str, force: bool, as_json: bool, report: str | None) -> None:
    """Compare two saved runs: per-op and total deltas of time, bytes and intensity, and bound changes.

    Results pair by workload (phase, batch, prompt, context); ops by name. Runs of different
    models or hardware are refused (the comparison would mislead) unless --force.

    \b
    Examples:
      rooftop analyze -o before.json
      rooftop analyze --kv-dtype fp8 -o after.json
      rooftop compare before.json after.json
      rooftop compare before.json after.json --report diff.html
      rooftop compare h100.json h200.json --force --json
    """
    runs = artifact.load(before), artifact.load(after)  # a malformed file is not fixed by --force
    with hint("pass --force to compare anyway"):
        cmp = compare(*runs, force=force, names=(before, after))
    if report:
        from rooftop.core.atomic import write_atomic
        from rooftop.errors import ReportError
        from rooftop.report.compare_html import render_compare_html

        write_atomic(report, render_compare_html(cmp, *runs, names=(before, after)), ReportError)
        click.echo(f"wrote {report}", err=True)
    if as_json:
        click.echo(dumps(cmp.to_dict(), indent=1))
    else:
        render_comparison(cmp, make_console())
