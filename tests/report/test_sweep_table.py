"""report.sweep_table: cells as rows, the operating point highlighted, large grids cut to one context."""

from __future__ import annotations

from rich.console import Console

from rooftop.api.sweep import Cohort, sweep
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.models.presets import load_preset
from rooftop.report.sweep_table import MAX_ROWS, cells_table, render_sweep_run, sweep_rows
from tests.report.runs import H100


def _run(batches: list[int], contexts: list[int]):  # type: ignore[no-untyped-def]
    return sweep(
        load_preset("llama-3.1-8b"), H100, Workload(), batches, contexts, [Cohort(2048, 256)], SLO(tpot_s=0.05)
    )


def test_rows_and_render() -> None:
    run = _run([1, 64], [2048, 8192])
    rows = sweep_rows(run.results[0])
    assert [(r["batch"], r["context"]) for r in rows] == [(1, 2048), (1, 8192), (64, 2048), (64, 8192)]
    console = Console(record=True, width=200)
    render_sweep_run(run, console)
    text = console.export_text()
    assert "Operating point: batch 64 at context 2048" in text and "goodput" in text


def test_large_grid_shows_the_operating_context_only() -> None:
    batches = list(range(1, 41))
    run = _run(batches, [512, 2048, 4096, 8192])  # 160 cells > MAX_ROWS
    assert 4 * len(batches) > MAX_ROWS
    assert cells_table(run.results[0]).row_count == len(batches)
