"""Rich tables for a sweep run: one row per cell (or per batch at the operating context), then findings."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rooftop.core.artifact import Result, Run
from rooftop.report.tables import _bound_text, findings_group, roofs_line
from rooftop.units import seconds

MAX_ROWS = 120  # larger grids show the operating context only (the CSV/JSON hold every cell)


def sweep_rows(result: Result) -> list[dict[str, Any]]:
    """The cells of a sweep result as dicts (column name -> value)."""
    table = result.extra.get("sweep", {})
    columns = table.get("columns", [])
    return [dict(zip(columns, row)) for row in table.get("rows", [])]


def cells_table(result: Result) -> Table:
    """batch, context, TPOT, TTFT, tokens/s, goodput, TFLOP/s, TB/s, FLOP/B, fits, SLO, bound."""
    rows = sweep_rows(result)
    op = result.extra.get("operating_point") or {}
    if len(rows) > MAX_ROWS and op:
        rows = [r for r in rows if r["context"] == op["context"]]
    table = Table(header_style="bold", box=None, pad_edge=False)
    for name in (
        "batch",
        "context",
        "TPOT",
        "TTFT",
        "tok/s",
        "goodput",
        "TFLOP/s",
        "TB/s",
        "FLOP/B",
        "fits",
        "SLO",
        "bound",
    ):
        table.add_column(name, justify="left" if name == "bound" else "right")
    for r in rows[:MAX_ROWS]:
        chosen = op and r["batch"] == op.get("batch") and r["context"] == op.get("context")
        table.add_row(
            str(r["batch"]),
            str(r["context"]),
            seconds(r["tpot_s"]),
            seconds(r["ttft_s"]),
            f"{r['tokens_per_s']:,.0f}",
            f"{r['goodput_tokens_per_s']:,.0f}",
            f"{r['flop_per_s'] / 1e12:.1f}",
            f"{r['bytes_per_s'] / 1e12:.2f}",
            f"{r['intensity']:.1f}",
            "yes" if r["fits"] else "no",
            "met" if r["slo_met"] else "—",
            _bound_text(str(r["bound"])),
            style="bold green" if chosen else None,
        )
    return table


def render_sweep_run(run: Run, console: Console) -> None:
    """Print each cohort's cells and findings."""
    first = run.results[0].workload if run.results else {}
    console.print(escape(roofs_line(run.roofs, str(first.get("compute_dtype", "bf16")))), style="dim")
    for result in run.results:
        w = result.workload
        slo = result.extra.get("slo", {})
        console.print()
        console.print(
            escape(
                f"{w.get('model')} · cohort {w.get('cohort')} · SLO TTFT "
                f"{seconds(slo['ttft_s']) if slo.get('ttft_s') else '—'}, TPOT "
                f"{seconds(slo['tpot_s']) if slo.get('tpot_s') else '—'}"
            ),
            style="bold",
        )
        console.print(cells_table(result))
        console.print(findings_group(result.findings))
