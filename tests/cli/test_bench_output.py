"""cli.bench_output: the level table fits, and what else happened at a level is said (issue 10)."""

from __future__ import annotations

import io

from rich.console import Console

from rooftop.cli.bench_output import level_notes, level_row, render_bench

LEVEL = {
    "rate": 4.0, "completed": 3, "failed": 2, "errors": {"timeout": 1, "http 500": 1},
    "ttft_s": {"p50": 0.2, "p99": 0.9}, "tpot_s": {"p50": 0.03, "p99": 0.05}, "itl_s": {"p50": 0.02},
    "output_tokens_per_s": 120.0, "goodput_rps": 0.6, "schedule_lag_s": {"p50": 0.001, "p99": 0.25},
    "engine": {"reset": True, "mfu": {"total": 0.2}, "mbu": {"total": 1.7}},
}  # fmt: skip


def test_notes_say_lateness_error_kinds_and_a_restart():
    notes = level_notes(LEVEL)
    assert notes[0] == "4 req/s: sends left 1.0 ms late (p50), 250.0 ms (p99)"
    assert notes[1] == "4 req/s: 2 failed: timeout ×1, http 500 ×1"
    # issue 10: a restart was only `reset: true` in the JSON while the terminal printed "engine view: MFU …"
    assert notes[2].startswith("4 req/s: the engine restarted during the run") and len(notes) == 3


def test_the_engine_view_flags_utilisation_above_100():
    notes = level_notes({**LEVEL, "engine": {"mfu": {"total": 0.2}, "mbu": {"total": 1.7}}})
    assert notes[-1] == "4 req/s: engine view: MFU 20.00%, MBU 170.00% (above 100%: see the finding)"


def test_the_row_and_the_table_at_80_columns():
    assert level_row(LEVEL)["ttft"] == "200.0 ms / 900.0 ms" and level_row(LEVEL)["done"] == "3/2"
    console = Console(record=True, width=80, file=io.StringIO())
    render_bench([LEVEL], {}, console)
    lines = console.export_text().splitlines()
    assert lines[0].split() == [
        "rate",
        "req/s",
        "done/failed",
        "TTFT",
        "p50/p99",
        "TPOT",
        "p50/p99",
        "goodput",
        "req/s",
    ]
    assert max(len(x) for x in lines) <= 80
