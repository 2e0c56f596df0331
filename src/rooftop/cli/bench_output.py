"""Terminal output of `rooftop bench`: one fitted row per load level, then what else happened at it.

Under the table, per level: the send lateness (how far behind schedule requests left: a loaded
client makes open-loop numbers lie), the errors by kind, an engine restart during the run (its
counters reset, so the engine's view is left out), and the engine's MFU/MBU.
"""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console

from rooftop.report.layout import Cell, Column, fit_table, make_console
from rooftop.report.tables import print_line

COLUMNS = {
    key: Column(key, header)
    for key, header in (
        ("rate", "rate req/s"),
        ("done", "done/failed"),
        ("ttft", "TTFT p50/p99"),
        ("tpot", "TPOT p50/p99"),
        ("itl", "ITL p50"),
        ("out", "out tok/s"),
        ("goodput", "goodput req/s"),
        ("lag", "send lag p99"),
    )
}
LAYOUTS = [
    [COLUMNS[k] for k in keys.split()]
    for keys in (
        "rate done ttft tpot itl out goodput lag",
        "rate done ttft tpot out goodput",
        "rate done ttft tpot goodput",
        "rate done ttft goodput",
    )
]


def _ms(q: dict[str, Any] | None, key: str) -> str:
    v = (q or {}).get(key)
    return "—" if v is None or not math.isfinite(v) else f"{v * 1e3:,.1f} ms"


def _pair(q: dict[str, Any] | None) -> str:
    return f"{_ms(q, 'p50')} / {_ms(q, 'p99')}"


def level_row(s: dict[str, Any]) -> dict[str, Cell]:
    """The cells of one load level."""
    return {
        "rate": "trace" if s.get("rate") is None else f"{s['rate']:g}",
        "done": f"{s['completed']}/{s['failed']}",
        "ttft": _pair(s.get("ttft_s")),
        "tpot": _pair(s.get("tpot_s")),
        "itl": _ms(s.get("itl_s"), "p50"),
        "out": f"{s.get('output_tokens_per_s', 0.0):,.1f}",
        "goodput": f"{s.get('goodput_rps', 0.0):.2f}",
        "lag": _ms(s.get("schedule_lag_s"), "p99"),
    }


def level_notes(s: dict[str, Any]) -> list[str]:
    """What else happened at one level: lateness, errors by kind, engine restart or view."""
    rate = "trace" if s.get("rate") is None else f"{s['rate']:g} req/s"
    notes = []
    lag = s.get("schedule_lag_s") or {}
    if lag:
        notes.append(f"{rate}: sends left {_ms(lag, 'p50')} late (p50), {_ms(lag, 'p99')} (p99)")
    errors = s.get("errors") or {}
    if errors:
        kinds = ", ".join(f"{k} ×{n}" for k, n in sorted(errors.items(), key=lambda kv: -kv[1]))
        notes.append(f"{rate}: {s['failed']} failed: {kinds}")
    eng = s.get("engine") or {}
    if eng.get("reset"):
        notes.append(f"{rate}: the engine restarted during the run (its counters reset): its view is left out")
    elif eng.get("mfu"):
        mfu, mbu = eng["mfu"].get("total"), (eng.get("mbu") or {}).get("total")
        notes.append(
            f"{rate}: engine view: MFU {mfu or 0:.2%}, MBU {mbu or 0:.2%}"
            + (" (above 100%: see the finding)" if (mbu or 0) > 1 or (mfu or 0) > 1 else "")
        )
    if eng.get("error"):
        notes.append(f"{rate}: engine telemetry: {eng['error']}")
    return notes


def render_bench(runs: list[dict[str, Any]], doc: dict[str, Any], console: Console | None = None) -> None:
    """The level table, the notes under it, and the knee and best goodput of a curve."""
    console = console or make_console()
    console.print(fit_table(LAYOUTS, [level_row(s) for s in runs], console.width))
    for s in runs:
        for note in level_notes(s):
            print_line(console, note)
    if "sweep" in doc:
        sw = doc["sweep"]
        print_line(
            console,
            f"knee at {sw['knee_rate']} req/s; best goodput {sw['best_goodput_rps']:.2f} req/s at "
            f"{sw['best_goodput_rate']} req/s",
        )
