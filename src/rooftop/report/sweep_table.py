"""Rich tables for a sweep run: one row per cell (or per batch at the operating context), then findings."""

from __future__ import annotations

from typing import Any

from rich.console import Console, RenderableType

from rooftop.core.artifact import Result, Run
from rooftop.report.layout import Cell, Column, fit_table
from rooftop.report.tables import _bound_text, findings_group, print_line, roofs_line
from rooftop.units import seconds

MAX_ROWS = 120  # larger grids show the operating context only (the CSV/JSON hold every cell)


def sweep_rows(result: Result) -> list[dict[str, Any]]:
    """The cells of a sweep result as dicts (column name -> value)."""
    table = result.extra.get("sweep", {})
    columns = table.get("columns", [])
    return [dict(zip(columns, row)) for row in table.get("rows", [])]


SWEEP_COLUMNS = {
    key: Column(key, header, "left" if key == "bound" else "right")
    for key, header in (
        ("batch", "batch"),
        ("context", "context"),
        ("tpot", "TPOT"),
        ("ttft", "TTFT"),
        ("tokens_per_s", "tok/s"),
        ("goodput", "goodput"),
        ("tflops", "TFLOP/s"),
        ("tbs", "TB/s"),
        ("intensity", "FLOP/B"),
        ("fits", "fits"),
        ("slo", "SLO"),
        ("bound", "bound"),
    )
}
SWEEP_LAYOUTS = [
    [SWEEP_COLUMNS[k] for k in keys.split()]
    for keys in (
        "batch context tpot ttft tokens_per_s goodput tflops tbs intensity fits slo bound",
        "batch context tpot ttft tokens_per_s goodput intensity fits slo bound",
        "batch context tpot ttft tokens_per_s goodput fits slo bound",
        "batch context tpot ttft tokens_per_s goodput fits slo",
    )
]


def cell_row(r: dict[str, Any]) -> dict[str, Cell]:
    """The cells of one sweep cell, keyed as in ``SWEEP_COLUMNS``."""
    return {
        "batch": str(r["batch"]),
        "context": str(r["context"]),
        "tpot": seconds(r["tpot_s"]),
        "ttft": seconds(r["ttft_s"]),
        "tokens_per_s": f"{r['tokens_per_s']:,.0f}",
        "goodput": f"{r['goodput_tokens_per_s']:,.0f}",
        "tflops": f"{r['flop_per_s'] / 1e12:.1f}",
        "tbs": f"{r['bytes_per_s'] / 1e12:.2f}",
        "intensity": f"{r['intensity']:.1f}",
        "fits": "yes" if r["fits"] else "no",
        "slo": "met" if r["slo_met"] else "—",
        "bound": _bound_text(str(r["bound"])),
    }


def cells_table(result: Result, width: int = 220) -> RenderableType:
    """batch, context, TPOT, TTFT, tokens/s, goodput, TFLOP/s, TB/s, FLOP/B, fits, SLO, bound.

    Narrow widths drop TFLOP/s and TB/s, then the intensity, then the bound.
    """
    rows = sweep_rows(result)
    op = result.extra.get("operating_point") or {}
    if len(rows) > MAX_ROWS and op:
        rows = [r for r in rows if r["context"] == op["context"]]
    rows = rows[:MAX_ROWS]
    styles = [
        "bold green" if op and r["batch"] == op.get("batch") and r["context"] == op.get("context") else None
        for r in rows
    ]
    return fit_table(SWEEP_LAYOUTS, [cell_row(r) for r in rows], width, row_styles=styles)


def render_sweep_run(run: Run, console: Console) -> None:
    """Print each cohort's cells and findings."""
    first = run.results[0].workload if run.results else {}
    print_line(console, roofs_line(run.roofs, str(first.get("compute_dtype", "bf16"))), "dim")
    for result in run.results:
        w = result.workload
        slo = result.extra.get("slo", {})
        console.print()
        print_line(
            console,
            f"{w.get('model')} · cohort {w.get('cohort')} · SLO TTFT "
            f"{seconds(slo['ttft_s']) if slo.get('ttft_s') else '—'}, TPOT "
            f"{seconds(slo['tpot_s']) if slo.get('tpot_s') else '—'}",
            "bold",
        )
        console.print(cells_table(result, console.width))
        if result.findings:
            console.print()
            console.print(findings_group(result.findings, console.width))
