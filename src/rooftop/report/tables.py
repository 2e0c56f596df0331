"""Rich tables for runs: per-op table, totals, memory budget and findings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from rooftop.core.artifact import Result, Run
from rooftop.core.findings import Finding
from rooftop.core.roofs import Roofs
from rooftop.units import gib, seconds, si

BOUND_STYLE = {"compute": "bold red", "memory": "cyan", "link": "magenta"}


def _bound_text(bound: str) -> Text:
    style = BOUND_STYLE.get(bound.split(":")[0], "white")
    return Text(bound, style=style)


def ops_table(result: Result, title: str = "") -> Table:
    """One row per operator: FLOPs, bytes by kind, intensity, time at the roof, share, bound."""
    total_time = sum(p.time_s or 0.0 for p in result.points) or float("nan")
    table = Table(title=title, title_justify="left", header_style="bold", pad_edge=False, box=None)
    for name, justify in (
        ("op", "left"),
        ("×", "right"),
        ("FLOPs", "right"),
        ("weights", "right"),
        ("act", "right"),
        ("KV read", "right"),
        ("KV write", "right"),
        ("FLOP/B", "right"),
        ("time", "right"),
        ("share", "right"),
        ("bound", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for p in result.points:
        t = p.traffic
        table.add_row(
            escape(p.label),
            str(p.count),
            si(p.flops, ""),
            si(t.weight_bytes, "B") if t else "",
            si(t.activation_bytes, "B") if t else si(p.bytes, "B"),
            si(t.kv_read_bytes, "B") if t else "",
            si(t.kv_write_bytes, "B") if t else "",
            f"{p.intensity:.3g}" if p.bytes else "∞",
            seconds(p.time_s or float("nan")),
            f"{(p.time_s or 0) / total_time:.1%}",
            _bound_text(p.bound),
        )
    return table


def totals_table(result: Result) -> Table:
    """Step totals: time (TTFT or TPOT), tokens/s, MFU, HFU, MBU, intensity and the bound."""
    t = result.totals
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    if t is None:
        return table
    label = {"prefill": "TTFT (at the roofs)", "decode": "time per output token"}.get(t.phase, "step time")
    rows: list[tuple[str, str | Text]] = [
        (label, seconds(t.time_s)),
        ("tokens/s", f"{t.tokens_per_s:,.1f}"),
        (
            "FLOPs / bytes",
            f"{si(t.flops, 'FLOP')} / {si(t.bytes, 'B')}  (weights {si(t.weight_bytes, 'B')}, "
            f"KV {si(t.kv_bytes, 'B')}, act {si(t.activation_bytes, 'B')})",
        ),
        ("intensity", f"{t.intensity:.3g} FLOP/B (ridge {t.peak_flop_per_s / t.bandwidth_bytes_per_s:.0f})"),
        ("MFU / HFU / MBU", f"{t.mfu:.1%} / {t.hfu:.1%} / {t.mbu:.1%}"),
        ("bound", _bound_text(t.bound)),
    ]
    for key, value in [*rows, *memory_rows(result)]:
        table.add_row(key, value)
    return table


def memory_rows(result: Result) -> list[tuple[str, str]]:
    """Weights, KV at this context, activations, free, max batch (per GPU), as label/value rows."""
    m = result.memory
    if not m:
        return []
    max_batch = m.get("max_batch")
    return [
        (
            "memory (per GPU)",
            f"weights {gib(m['weights_bytes'])}, KV {gib(m['kv_cache_bytes'])}, "
            f"activations {gib(m['activation_bytes'])}, free {gib(m['free_bytes'])} "
            f"of {gib(m['usable_bytes'])} usable",
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


def findings_group(findings: Sequence[Finding]) -> Group:
    """Findings with their first check, remedies and side effects."""
    parts = []
    for f in findings:
        text = Text()
        text.append(f"[{f.severity}] ", style={"critical": "bold red", "warn": "yellow"}.get(f.severity, "green"))
        text.append(f.title + "\n", style="bold")
        if f.check_first:
            text.append(f"  check first: {f.check_first}\n", style="dim")
        for r in f.remedies:
            text.append(f"  → {r.action}\n")
            text.append(f"    side effects: {r.side_effects}\n", style="dim")
            if r.predicted:
                text.append(f"    predicted: {predicted_line(r.predicted)}\n", style="green")
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
    dtypes = f"weights {w.get('weight_dtype')}, KV {w.get('kv_dtype')}, compute {w.get('compute_dtype')}"
    return f"{w.get('model')} · {w.get('phase')} · batch {w.get('batch')} · {shape} · {dtypes} · tp {w.get('tp')}"


def render_run(run: Run, console: Console) -> None:
    """Print every result of ``run``: ops table, totals, memory and findings."""
    first = run.results[0].workload if run.results else {}
    console.print(escape(roofs_line(run.roofs, str(first.get("compute_dtype", "bf16")))), style="dim")
    for result in run.results:
        console.print()
        console.print(
            Panel(
                Group(ops_table(result), Text(), totals_table(result)),
                title=escape(result_title(result)),
                title_align="left",
            )
        )
        if result.findings:
            console.print(findings_group(result.findings))
