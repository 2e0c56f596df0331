"""Rich tables for runs: per-op table, totals, memory budget and findings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from rooftop.core.artifact import Result, Run
from rooftop.core.findings import Finding
from rooftop.core.points import RooflinePoint
from rooftop.core.roofs import Roofs
from rooftop.report.layout import Cell, Column, fit_table, num, pairs_table, wrap
from rooftop.units import gib, seconds, si

BOUND_STYLE = {"compute": "bold red", "memory": "cyan", "link": "magenta"}


def _bound_text(bound: str) -> Text:
    style = BOUND_STYLE.get(bound.split(":")[0], "white")
    return Text(bound, style=style)


OP_COLUMNS = {
    "op": Column("op", justify="left", wrap=True),
    "count": Column("count", "×"),
    "flops": Column("flops", "FLOPs"),
    "weights": Column("weights"),
    "act": Column("act"),
    "kv_read": Column("kv_read", "KV read"),
    "kv_write": Column("kv_write", "KV write"),
    "kv": Column("kv", "KV r+w"),
    "bytes": Column("bytes"),
    "intensity": Column("intensity", "FLOP/B"),
    "time": Column("time"),
    "share": Column("share"),
    "bound": Column("bound", justify="left"),
}
OP_LAYOUTS = [
    [OP_COLUMNS[k] for k in keys.split()]
    for keys in (
        "op count flops weights act kv_read kv_write intensity time share bound",
        "op count flops weights act kv intensity time share bound",
        "op flops weights act kv intensity time share bound",
        "op flops bytes intensity time share bound",
    )
]


def op_row(p: RooflinePoint, total_time: float) -> dict[str, Cell]:
    """The cells of one operator, keyed as in ``OP_COLUMNS``."""
    t = p.traffic
    return {
        "op": escape(p.label),
        "count": str(p.count),
        "flops": si(p.flops, ""),
        "weights": si(t.weight_bytes, "B") if t else "",
        "act": si(t.activation_bytes, "B") if t else si(p.bytes, "B"),
        "kv_read": si(t.kv_read_bytes, "B") if t else "",
        "kv_write": si(t.kv_write_bytes, "B") if t else "",
        "kv": si(t.kv_read_bytes + t.kv_write_bytes, "B") if t else "",
        "bytes": si(p.bytes, "B"),
        "intensity": num(p.intensity),
        "time": seconds(p.time_s or float("nan")),
        "share": f"{(p.time_s or 0) / total_time:.1%}",
        "bound": _bound_text(p.bound),
    }


def ops_table(result: Result, title: str = "", width: int = 80) -> RenderableType:
    """One row per operator: FLOPs, bytes by kind, intensity, time at the roof, share, bound.

    Narrow widths merge KV read and write, then drop the count, then merge all bytes into one column.
    """
    total_time = sum(p.time_s or 0.0 for p in result.points) or float("nan")
    rows = [op_row(p, total_time) for p in result.points]
    return fit_table(OP_LAYOUTS, rows, width, title)


def totals_table(result: Result, width: int = 80) -> Table:
    """Step totals: time (TTFT or TPOT), tokens/s, MFU, HFU, MBU, intensity and the bound."""
    t = result.totals
    if t is None:
        return pairs_table([], width)
    label = {"prefill": "TTFT (at the roofs)", "decode": "time per output token"}.get(t.phase, "step time")
    rows: list[tuple[str, Cell]] = [
        (label, seconds(t.time_s)),
        ("tokens/s", f"{t.tokens_per_s:,.1f}"),
        ("FLOPs / bytes", f"{si(t.flops, 'FLOP')} / {si(t.bytes, 'B')}"),
        (
            "bytes by kind",
            f"weights {si(t.weight_bytes, 'B')}, KV {si(t.kv_bytes, 'B')}, act {si(t.activation_bytes, 'B')}",
        ),
        ("intensity", f"{num(t.intensity)} FLOP/B (ridge {t.peak_flop_per_s / t.bandwidth_bytes_per_s:.0f})"),
        ("MFU / HFU / MBU", " / ".join(pct(x) for x in (t.mfu, t.hfu, t.mbu))),
        ("bound", _bound_text(t.bound)),
    ]
    return pairs_table([*rows, *memory_rows(result)], width)


def memory_rows(result: Result) -> list[tuple[str, Cell]]:
    """Weights, KV at this context, activations, free, max batch (per GPU), as label/value rows."""
    m = result.memory
    if not m:
        return []
    max_batch = m.get("max_batch")
    free = m["free_bytes"]
    return [
        (
            "memory (per GPU)",
            f"weights {gib(m['weights_bytes'])}, KV {gib(m['kv_cache_bytes'])}, "
            f"activations {gib(m['activation_bytes'])}",
        ),
        (
            "free" if free >= 0 else "short by",
            f"{gib(abs(free))} of {gib(m['usable_bytes'])} usable",
        ),
        ("max batch that fits", "does not fit" if not max_batch else f"{max_batch:,}"),
    ]


def tokens_text(x: float) -> str:
    """Tokens/s: whole numbers with separators from 100 up, three digits below."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def predicted_line(predicted: dict[str, list[Any]]) -> str:
    """'TTFT 33.0 ms → 33.0 ms · TPOT 4.56 ms → 1.65 ms · tokens/s 219 → 606 · fits'."""
    parts = []
    for key, label in (("ttft_s", "TTFT"), ("tpot_s", "TPOT")):
        before, after = predicted[key]
        if before != after:
            parts.append(f"{label} {seconds(before)} → {seconds(after)}")
    before, after = predicted["tokens_per_s_per_gpu"]
    parts.append(f"tokens/s/GPU {tokens_text(before)} → {tokens_text(after)}")
    fits = predicted.get("fits", [True, True])
    parts.append("fits" if fits[1] else "does not fit")
    return " · ".join(parts)


SEVERITY_STYLE = {"error": "bold red", "critical": "bold red", "warn": "yellow"}


def findings_group(findings: Sequence[Finding], width: int = 80) -> Group:
    """Findings with their first check, remedies and side effects, wrapped to ``width``."""
    parts = []
    for f in findings:
        head = f"[{f.severity}] "
        text = Text(wrap(head + f.title, width, "", "  ") + "\n", style="bold")
        text.stylize(SEVERITY_STYLE.get(str(f.severity), "green"), 0, len(head))
        if f.check_first:
            text.append(wrap(f"check first: {f.check_first}", width, "  ", "    ") + "\n", style="dim")
        for r in f.remedies:
            text.append(wrap(f"→ {r.action}", width, "  ", "    ") + "\n")
            text.append(wrap(f"side effects: {r.side_effects}", width, "    ", "      ") + "\n", style="dim")
            if r.predicted:
                text.append(
                    wrap(f"predicted: {predicted_line(r.predicted)}", width, "    ", "      ") + "\n", style="green"
                )
        parts.append(text)
    return Group(*parts)


def roofs_line(roofs: Roofs, dtype: str) -> str:
    """'h100-sxm: bf16 989 TFLOP/s (datasheet), HBM 3.35 TB/s, ridge 295 FLOP/B'."""
    compute = roofs.compute_roof(dtype)
    hbm = roofs.memory_roof("hbm")
    return (
        f"{roofs.name}: {dtype} {si(compute.flop_per_s, 'FLOP/s')} ({compute.kind.value}), "
        f"HBM {si(hbm.bytes_per_s, 'B/s')} ({hbm.kind.value}), ridge {compute.flop_per_s / hbm.bytes_per_s:.0f} FLOP/B"
    )


def result_title(result: Result) -> str:
    """A one-line description of a result's workload."""
    w = result.workload
    if w.get("phase") == "prefill":
        shape = f"prompt {w.get('prompt')}" + (
            f" (cached prefix {w['cached_prefix']})" if w.get("cached_prefix") else ""
        )
    else:
        shape = f"context {w.get('context')}"
    experts = f", experts {w['expert_dtype']}" if w.get("expert_dtype") else ""
    dtypes = f"weights {w.get('weight_dtype')}{experts}, KV {w.get('kv_dtype')}, compute {w.get('compute_dtype')}"
    return f"{w.get('model')} · {w.get('phase')} · batch {w.get('batch')} · {shape} · {dtypes} · tp {w.get('tp')}"


def print_line(console: Console, text: str, style: str = "") -> None:
    """Print plain ``text`` wrapped to the console, never between a number and its unit."""
    console.print(Text(wrap(text, console.width), style=style), soft_wrap=True)


def render_run(run: Run, console: Console) -> None:
    """Print every result of ``run``: title, ops table, totals, memory and findings."""
    first = run.results[0].workload if run.results else {}
    width = console.width
    print_line(console, roofs_line(run.roofs, str(first.get("compute_dtype", "bf16"))), "dim")
    for result in run.results:
        console.print()
        print_line(console, result_title(result), "bold")
        console.print(ops_table(result, width=width))
        console.print()
        console.print(totals_table(result, width))
        if result.findings:
            console.print()
            console.print(findings_group(result.findings, width))


POINT_LAYOUTS = [
    [OP_COLUMNS["op"], OP_COLUMNS["count"], OP_COLUMNS["flops"], OP_COLUMNS["bytes"], OP_COLUMNS["intensity"],
     Column("flop_per_s", "FLOP/s"), Column("bytes_per_s", "B/s"), OP_COLUMNS["time"], OP_COLUMNS["bound"]],
    [OP_COLUMNS["op"], OP_COLUMNS["flops"], OP_COLUMNS["bytes"], OP_COLUMNS["intensity"],
     Column("flop_per_s", "FLOP/s"), OP_COLUMNS["bound"]],
]  # fmt: skip


def render_points_run(run: Run, console: Console) -> None:
    """Any other run (watch, bench): per result its workload fields, its points, totals and findings."""
    width = console.width
    print_line(console, f"{run.command} · {run.roofs.name}", "dim")
    for result in run.results:
        console.print()
        fields = ", ".join(f"{k} {v}" for k, v in result.workload.items() if v not in ("", None) and _plain(v))
        print_line(console, fields or run.command, "bold")
        rows = [
            {**op_row(p, float("nan")), "bytes": si(p.bytes, "B"), "flop_per_s": si(p.flop_per_s, "FLOP/s"),
             "bytes_per_s": si(p.bytes_per_s, "B/s")}
            for p in result.points
        ]  # fmt: skip
        console.print(fit_table(POINT_LAYOUTS, rows, width))
        t = result.totals
        if t is not None and all(v is not None for v in msgspec.structs.astuple(t)) and t.time_s > 0:  # NaN: no
            console.print()
            console.print(totals_table(result, width))  # a live window without an interval has no totals
        if result.findings:
            console.print()
            console.print(findings_group(result.findings, width))


def pct(x: float | None) -> str:
    """'12.3%', or '—' when unknown (never 'nan%')."""
    return "—" if x is None or x != x else f"{x:.1%}"


def _plain(value: object) -> bool:
    return isinstance(value, str | int | float | bool)
