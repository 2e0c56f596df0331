"""Rich rendering of a `rooftop profile` run: measured next to analytic, per operator, per phase."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.table import Table

from rooftop.core.artifact import Result, Run
from rooftop.core.points import RooflinePoint, Source
from rooftop.core.roofs import Roofs
from rooftop.measure.calibrate import op_class
from rooftop.report.layout import Cell, Column, fit_table, num, pairs_table
from rooftop.report.tables import _bound_text, findings_group, print_line, result_title
from rooftop.units import seconds, si


def roofs_panel_line(roofs: Roofs) -> str:
    """The measured roofs with their spread (median vs best) and the contention seen."""
    spread = roofs.identity.get("spread", {})
    parts = [
        f"{r.dtype} {si(r.flop_per_s, 'FLOP/s')} (±{spread.get(f'compute.{r.dtype}', float('nan')):.1%})"
        for r in roofs.compute
    ]
    parts += [
        f"{'DRAM' if r.level == 'hbm' and roofs.name.startswith('cpu') else r.level.upper()} "
        f"{si(r.bytes_per_s, 'B/s')} (±{spread.get(f'memory.{r.level}', float('nan')):.1%})"
        for r in roofs.memory
    ]
    kind = roofs.compute[0].kind.value if roofs.compute else ""
    other = roofs.identity.get("other_processes_cpu_share")
    busy = f"; other processes used {other:.0%} of the CPUs while measuring" if isinstance(other, float) else ""
    how = ", ".join(x for x in (kind, str(roofs.identity.get("mode") or "")) if x)
    return f"roofs ({how}) {roofs.name}: " + ", ".join(parts) + busy


def _analytic_by_class(points: list[RooflinePoint]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = defaultdict(lambda: {"time_s": 0.0, "flops": 0.0, "bytes": 0.0})
    for p in points:
        entry = out[op_class(p.label)]
        entry["time_s"] += p.time_s or 0.0
        entry["flops"] += p.flops
        entry["bytes"] += p.bytes
    return out


PROFILE_COLUMNS = {
    "op": Column("op", justify="left", wrap=True),
    "count": Column("count", "×"),
    "measured": Column("measured"),
    "share": Column("share"),
    "analytic": Column("analytic"),
    "ratio": Column("ratio", "meas/model"),
    "flops": Column("flops", "FLOPs"),
    "bytes": Column("bytes"),
    "intensity": Column("intensity", "FLOP/B"),
    "model_intensity": Column("model_intensity", "model FLOP/B"),
    "achieved": Column("achieved"),
    "roof_eff": Column("roof_eff", "roof eff"),
    "bound": Column("bound", justify="left"),
}
PROFILE_LAYOUTS = [
    [PROFILE_COLUMNS[k] for k in keys.split()]
    for keys in (
        "op count measured share analytic ratio flops bytes intensity model_intensity achieved roof_eff bound",
        "op count measured share analytic ratio flops bytes intensity achieved roof_eff bound",
        "op measured share analytic ratio intensity achieved roof_eff bound",
        "op measured share analytic ratio achieved roof_eff",
    )
]


def profile_rows(result: Result, roofs: Roofs) -> list[dict[str, Cell]]:
    """One row per measured operator class, keyed as in ``PROFILE_COLUMNS``."""
    measured = sorted((p for p in result.points if p.source is Source.MEASURED), key=lambda p: -(p.time_s or 0))
    analytic = _analytic_by_class([p for p in result.points if p.source is Source.ANALYTIC])
    step = float(result.extra.get("profile", {}).get("step_time_s") or 0) or float("nan")
    rows: list[dict[str, Cell]] = []
    for p in measured:
        a = analytic.get(p.label)
        rows.append(
            {
                "op": escape(p.label),
                "count": str(p.count),
                "measured": seconds(p.time_s or float("nan")),
                "share": f"{(p.time_s or 0) / step:.1%}",
                "analytic": seconds(a["time_s"]) if a else "—",
                "ratio": f"{(p.time_s or 0) / a['time_s']:.2f}×" if a and a["time_s"] else "—",
                "flops": si(p.flops, "") if p.flops else "0",
                "bytes": si(p.bytes, "B"),
                "intensity": num(p.intensity),
                "model_intensity": num(a["flops"] / a["bytes"]) if a and a["bytes"] else "—",
                "achieved": si(p.flop_per_s, "FLOP/s") if p.flops else si(p.bytes_per_s, "B/s"),
                "roof_eff": f"{p.roof_efficiency(roofs):.0%}",
                "bound": _bound_text(p.bound),
            }
        )
    return rows


def profile_table(result: Result, roofs: Roofs, width: int = 220) -> RenderableType:
    """One row per operator class: measured time, analytic time at the measured roofs, both intensities.

    Narrow widths drop the count, the raw FLOPs and bytes, the model's intensity, then the bound.
    """
    return fit_table(PROFILE_LAYOUTS, profile_rows(result, roofs), width)


def summary_table(result: Result, width: int = 220) -> Table:
    """Step time, gaps, KV copies, unattributed share, FLOP cross-check and the trace."""
    prof: dict[str, Any] = result.extra.get("profile", {})
    t = result.totals
    if not prof:
        return pairs_table([], width)
    step = prof["step_time_s"]
    unprofiled = prof.get("unprofiled_step_s")
    rows = [
        (
            "step time (profiled)",
            f"{seconds(step)} mean of {prof['steps']}"
            + (
                f"; without the profiler {seconds(unprofiled)} (warm), cold {seconds(prof.get('cold_step_s') or 0)}"
                if unprofiled
                else ""
            ),
        ),
        (
            "gaps between ops",
            f"{seconds(prof['gap_s'])} = {prof['gap_share']:.1%} of the step (Python, dispatch, launch)",
        ),
        (
            "KV-cache append",
            f"{seconds(prof['kv_append_s'])}, {si(prof['kv_append_bytes'], 'B')} moved "
            "(DynamicCache's torch.cat copies the whole cache each step)",
        ),
        (
            "accounted",
            f"{prof['accounted_share']:.1%} of the step by named operators + gaps "
            f"(unattributed ops {seconds(prof['unattributed_s'])})",
        ),
    ]
    ratio = prof.get("flop_counter_ratio")
    if ratio is not None:
        rows.append(
            ("matmul FLOPs", f"{si(prof['matmul_flops_traced'], 'FLOP')} from shapes = {ratio:.4f} × FlopCounterMode's")
        )
    elif prof.get("flop_counter_error"):
        rows.append(
            ("matmul FLOPs", f"{si(prof['matmul_flops_traced'], 'FLOP')} from shapes; {prof['flop_counter_error']}")
        )
    if t is not None:
        rows.append(("MFU / MBU (measured time)", f"{t.mfu:.1%} / {t.mbu:.1%}; tokens/s {t.tokens_per_s:,.1f}"))
    if prof.get("interrupted"):
        rows.append(("interrupted", "Ctrl-C: only the steps measured before it are reported"))
    return pairs_table(rows, width)


def render_profile(run: Run, console: Console) -> None:
    """Print a profile run: roofs used, then per phase the side-by-side table, summary and findings."""
    width = console.width
    print_line(console, roofs_panel_line(run.roofs), "dim")
    for result in run.results:
        console.print()
        print_line(console, "measured vs analytic · " + result_title(result), "bold")
        console.print(profile_table(result, run.roofs, width))
        console.print()
        console.print(summary_table(result, width))
        if result.findings:
            console.print()
            console.print(findings_group(result.findings, width))
    trace = run.identity.get("trace")
    if trace:
        names = ", ".join(str(t) for t in trace) if isinstance(trace, list) else str(trace)
        print_line(console, f"torch trace: {names} (open in https://ui.perfetto.dev)", "dim")
