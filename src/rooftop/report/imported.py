"""Terminal rendering of `rooftop import`: measured points, the timeline, steps, breakdowns, findings."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from rooftop.core.artifact import Result, Run
from rooftop.core.points import RooflinePoint
from rooftop.core.roofs import Roofs
from rooftop.report.tables import findings_group
from rooftop.units import seconds, si

TOP = 15


def _roof_pct(p: RooflinePoint, roofs: Roofs) -> str:
    if not p.time_s or not roofs.has_memory(p.level) or not roofs.compute:
        return ""
    if p.flops > 0 and not roofs.has_compute(p.dtype):
        return ""
    eff = p.roof_efficiency(roofs)
    return f"{eff:.0%}" if eff == eff else ""


def points_table(result: Result, roofs: Roofs, top: int = TOP) -> Table:
    """The ``top`` points by time: count, time, share, FLOPs, bytes at level, FLOP/s, B/s, % of roof."""
    points = sorted(result.points, key=lambda p: -(p.time_s or 0.0))
    total = sum(p.time_s or 0.0 for p in points if p.level in ("hbm", "pcie")) or float("nan")
    table = Table(title=f"top {min(top, len(points))} of {len(points)} points by time", title_justify="left",
                  header_style="bold", box=None, pad_edge=False)  # fmt: skip
    table.add_column("point", no_wrap=True, max_width=60, overflow="ellipsis")
    for name in ("×", "time", "share", "FLOPs", "bytes", "level", "FLOP/s", "B/s", "roof"):
        table.add_column(name, justify="left" if name == "level" else "right", no_wrap=True)
    for p in points[:top]:
        table.add_row(
            escape(p.label[:80]),
            str(p.count),
            seconds(p.time_s or float("nan")),
            f"{(p.time_s or 0.0) / total:.1%}" if p.level in ("hbm", "pcie") and total == total else "",
            si(p.flops, "") if p.flops else "",
            si(p.bytes, "B") if p.bytes else "",
            p.level,
            si(p.flop_per_s, "FLOP/s") if p.flops else "",
            si(p.bytes_per_s, "B/s") if p.bytes else "",
            _roof_pct(p, roofs),
        )
    return table


def _largest_gap(tl: dict[str, Any]) -> str:
    start = tl.get("largest_gap_start_us")
    if start is None or start != start:  # NaN (or null from JSON): no hole between kernel intervals
        return "none: the kernels' intervals leave no hole"
    return f"{seconds(tl['largest_gap_s'])} at ts={start:.3f} µs; {tl.get('gaps_over_10us', 0)} gaps > 10 µs"


def timeline_table(tl: dict[str, Any]) -> Table:
    """Busy, idle, gaps and their causes, NCCL and overlap, joins, launch and CUDA-graph figures."""
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    launch, graphs = tl.get("launch", {}), tl.get("cuda_graph", {})
    rows = [
        ("kernels", f"{tl['kernels']:,} on {len(tl.get('streams', {}))} stream(s); {tl.get('memcpy', 0)} memcpy, "
                    f"{tl.get('memset', 0)} memset"),
        ("span / busy / idle", f"{seconds(tl['span_s'])} / {seconds(tl['busy_s'])} / {seconds(tl['idle_s'])} "
                               f"({tl.get('idle_share', 0):.1%} idle)"),
        ("largest gap", _largest_gap(tl)),
        ("gaps: host / sync / other", f"{seconds(tl.get('gap_host_s', 0))} / {seconds(tl.get('gap_sync_s', 0))} / "
                                      f"{seconds(tl.get('gap_other_s', 0))}"),
        ("communication", f"{tl['nccl_kernels']} kernels, {seconds(tl['nccl_s'])} (union), "
                          f"{seconds(tl['comm_compute_overlap_s'])} under compute"),
        ("unjoined kernels", f"{tl['unjoined_kernels']:,} ({tl.get('unjoined_share', 0):.1%}) without a launch call"),
        ("launch", f"median kernel {seconds(launch.get('kernel_median_s', float('nan')))}, median call "
                   f"{seconds(launch.get('call_median_s', float('nan')))}, median launch→start "
                   f"{seconds(launch.get('delay_median_s', float('nan')))}"),
        ("CUDA graphs", f"{graphs.get('graph_launches', 0)} replays, {graphs.get('graph_kernels', 0)} kernels"),
    ]  # fmt: skip
    for key, value in rows:
        table.add_row(key, escape(value))
    return table


def steps_table(steps: dict[str, Any]) -> Table:
    """One row per ProfilerStep; the last step is marked."""
    table = Table(header_style="bold", box=None, pad_edge=False)
    for name in ("step", "GPU activities", "span", "idle", "compute", "non-compute"):
        table.add_column(name, justify="left" if name == "step" else "right")
    for s in steps.get("steps", []):
        table.add_row(
            escape(s["step"]) + (" (last)" if s.get("last") else ""),
            str(s["activities"]),
            *(seconds(s[k]) if k in s else "" for k in ("span_s", "idle_s", "compute_s", "non_compute_s")),
        )
    return table


def breakdown_table(breakdown: dict[str, Any]) -> Table:
    """Kernel time per class group (nsys summaries)."""
    table = Table(header_style="bold", box=None, pad_edge=False,
                  title=f"{breakdown['kernel_names']} kernel names, {breakdown['instances']:,} instances, "
                        f"{seconds(breakdown['total_s'])}", title_justify="left")  # fmt: skip
    for name in ("class", "time", "share", "instances"):
        table.add_column(name, justify="left" if name == "class" else "right")
    for key, e in breakdown["classes"].items():
        table.add_row(key, seconds(e["time_s"]), f"{e['share']:.1%}", f"{e['instances']:,}")
    return table


def render_import(run: Run, console: Console, top: int = TOP) -> None:
    """Print every imported result with its sections and findings (``top`` points per result)."""
    roofs = run.roofs
    roof_text = ", ".join(f"{r.dtype} {si(r.flop_per_s, 'FLOP/s')}" for r in roofs.compute[:3])
    mem_text = ", ".join(f"{r.level} {si(r.bytes_per_s, 'B/s')} ({r.kind.value})" for r in roofs.memory)
    console.print(escape(f"roofs: {roofs.name}: {roof_text or 'no compute roof'}; {mem_text or 'no memory roof'}"),
                  style="dim")  # fmt: skip
    for result in run.results:
        w = result.workload
        title = f"{w.get('source')} · {w.get('file')}" + (f" · rank {w['rank']}" if w.get("rank") is not None else "")
        title += f" · {w['device']}" if w.get("device") else ""
        parts: list[Any] = [points_table(result, roofs, top)]
        if "timeline" in result.extra:
            parts += [Text(), timeline_table(result.extra["timeline"])]
        if result.extra.get("steps", {}).get("steps"):
            parts += [Text(), steps_table(result.extra["steps"])]
        if "breakdown" in result.extra:
            parts += [Text(), breakdown_table(result.extra["breakdown"])]
        console.print()
        console.print(Panel(Group(*parts), title=escape(title), title_align="left"))
        if result.findings:
            console.print(findings_group(result.findings))
    skipped = run.identity.get("skipped_files") or {}
    for name, why in skipped.items():
        console.print(escape(f"skipped {name}: {why}"), style="dim")
