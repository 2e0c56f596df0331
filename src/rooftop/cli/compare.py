"""`rooftop compare`: what changed between two saved runs, op by op and in totals."""

from __future__ import annotations

import math

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rooftop.api.compare import Comparison, compare
from rooftop.cli.flags import hint
from rooftop.core import artifact
from rooftop.core.jsonenc import dumps
from rooftop.units import seconds, si


def _ratio(before: float | None, after: float | None) -> str:
    if before is None or after is None or not before:
        return "—"
    return f"×{after / before:.3g}"


def _num(value: float | None, unit: str) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return seconds(value) if unit == "s" else si(value, unit)


def _fmt(value: float | None, unit: str) -> str:
    if unit:
        return _num(value, unit)
    return "—" if value is None else f"{value:.4g}"


def render_comparison(cmp: Comparison, console: Console) -> None:
    """Totals then ops, each with before, after and the ratio; bound changes highlighted."""
    for warning in cmp.warnings:
        console.print(f"[yellow]forced:[/] {escape(warning)}")
    for r in cmp.results:
        console.print()
        console.print(escape(" · ".join(f"{k} {v}" for k, v in r.key.items())), style="bold")
        totals = Table(header_style="bold", box=None, pad_edge=False)
        for col in ("total", cmp.before, cmp.after, "change"):
            totals.add_column(escape(col), justify="left" if col == "total" else "right")
        for name, (b, a) in r.totals.items():
            unit = {"time_s": "s", "bytes": "B", "flops": "FLOP"}.get(name, "")
            totals.add_row(name, _fmt(b, unit), _fmt(a, unit), _ratio(b, a))
        console.print(totals)
        ops = Table(header_style="bold", box=None, pad_edge=False)
        for col in ("op", "time", "→", "change", "bytes", "→ ", "FLOP/B", " →", "bound"):
            ops.add_column(col, justify="left" if col in ("op", "bound") else "right")
        for o in r.ops:
            bound = f"{o.before_bound} → {o.after_bound}" if o.bound_changed else (o.after_bound or o.before_bound)
            ops.add_row(
                escape(o.name),
                _num(o.before_time_s, "s"),
                _num(o.after_time_s, "s"),
                _ratio(o.before_time_s, o.after_time_s),
                _num(o.before_bytes, "B"),
                _num(o.after_bytes, "B"),
                "—" if o.before_intensity is None else f"{o.before_intensity:.3g}",
                "—" if o.after_intensity is None else f"{o.after_intensity:.3g}",
                escape(bound),
                style="bold yellow" if o.bound_changed else None,
            )
        console.print(ops)
    for item in cmp.unpaired:
        console.print(f"[dim]not paired: {escape(item)}[/]")


@click.command()
@click.argument("before", type=click.Path(dir_okay=False))
@click.argument("after", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Compare even when the models or the hardware differ.")
@click.option("--json", "as_json", is_flag=True, help="Print the rooftop.compare/1 JSON instead of tables.")
def compare_command(before: str, after: str, force: bool, as_json: bool) -> None:
    """Compare two saved runs: per-op and total deltas of time, bytes and intensity, and bound changes.

    Results pair by workload (phase, batch, prompt, context); ops by name. Runs of different
    models or hardware are refused (the comparison would mislead) unless --force.

    \b
    Examples:
      rooftop analyze -o before.json
      rooftop analyze --kv-dtype fp8 -o after.json
      rooftop compare before.json after.json
      rooftop compare h100.json h200.json --force --json
    """
    runs = artifact.load(before), artifact.load(after)  # a malformed file is not fixed by --force
    with hint("pass --force to compare anyway"):
        cmp = compare(*runs, force=force, names=(before, after))
    if as_json:
        click.echo(dumps(cmp.to_dict(), indent=1))
    else:
        render_comparison(cmp, Console())
