"""Terminal rendering of `rooftop import`: measured points, the timeline, steps, breakdowns, findings."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from rooftop.core.artifact import Result, Run
from rooftop.core.points import RooflinePoint
from rooftop.core.roofs import Roofs
from rooftop.ingest.timeline import GAP_CAUSES
from rooftop.report.layout import Cell, Column, fit_table, pairs_table, shorten_name
from rooftop.report.tables import findings_group, print_line
from rooftop.units import seconds, si

TOP = 15


def _roof_pct(p: RooflinePoint, roofs: Roofs) -> str:
    if not p.time_s or not roofs.has_memory(p.level) or not roofs.compute:
        return ""
    if p.flops > 0 and not roofs.has_compute(p.dtype):
        return ""
    eff = p.roof_efficiency(roofs)
    return f"{eff:.0%}" if eff == eff else ""


POINT_COLUMNS = {
    "point": Column("point", justify="left", shorten=True),
    "count": Column("count", "×"),
    "time": Column("time"),
    "share": Column("share"),
    "flops": Column("flops", "FLOPs"),
    "bytes": Column("bytes"),
    "level": Column("level", justify="left"),
    "flop_per_s": Column("flop_per_s", "FLOP/s"),
    "bytes_per_s": Column("bytes_per_s", "B/s"),
    "roof": Column("roof"),
}
POINT_LAYOUTS = [
    [POINT_COLUMNS[k] for k in keys.split()]
    for keys in (
        "point count time share flops bytes level flop_per_s bytes_per_s roof",
        "point count time share flops bytes flop_per_s bytes_per_s roof",
        "point count time share flop_per_s bytes_per_s roof",
        "point time share roof",
    )
]


def point_row(p: RooflinePoint, roofs: Roofs, total: float) -> dict[str, Cell]:
    """The cells of one imported point, keyed as in ``POINT_COLUMNS``."""
    return {
        "point": Text(shorten_name(p.label, 120)),
        "count": f"{p.count:,}",
        "time": seconds(p.time_s or float("nan")),
        "share": f"{(p.time_s or 0.0) / total:.1%}" if p.level in ("hbm", "pcie") and total == total else "",
        "flops": si(p.flops, "") if p.flops else "",
        "bytes": si(p.bytes, "B") if p.bytes else "",
        "level": p.level if p.bytes else "",  # where bytes were counted: a point without bytes has no level to name
        "flop_per_s": si(p.flop_per_s, "FLOP/s") if p.flops else "",
        "bytes_per_s": si(p.bytes_per_s, "B/s") if p.bytes else "",
        "roof": _roof_pct(p, roofs),
    }


def points_title(result: Result, top: int = TOP) -> str:
    """'top 15 of 240 points by time'."""
    return f"top {min(top, len(result.points))} of {len(result.points)} points by time"


def points_table(result: Result, roofs: Roofs, top: int = TOP, width: int = 220) -> RenderableType:
    """The ``top`` points by time: count, time, share, FLOPs, bytes at level, FLOP/s, B/s, % of roof.

    Narrow widths drop the memory level, then FLOPs and bytes, then the count and rates; names are shortened last.
    """
    points = sorted(result.points, key=lambda p: -(p.time_s or 0.0))
    total = sum(p.time_s or 0.0 for p in points if p.level in ("hbm", "pcie")) or float("nan")
    rows = [point_row(p, roofs, total) for p in points[:top]]
    return fit_table(POINT_LAYOUTS, rows, width, points_title(result, top))


def _largest_gap(tl: dict[str, Any]) -> str:
    start = tl.get("largest_gap_start_us")
    if start is None or start != start:  # NaN (or null from JSON): no hole between kernel intervals
        return "none: the kernels' intervals leave no hole"
    offset = tl.get("largest_gap_offset_s")
    where = f"{seconds(offset)} into the span" if isinstance(offset, float) and math.isfinite(offset) else "at"
    return f"{seconds(tl['largest_gap_s'])} {where} (ts {start:.0f} µs); {tl.get('gaps_over_10us', 0)} gaps > 10 µs"


def timeline_table(tl: dict[str, Any], width: int = 220) -> Table:
    """Busy, idle, gaps and their causes, NCCL and overlap, joins, launch and CUDA-graph figures."""
    launch, graphs = tl.get("launch", {}), tl.get("cuda_graph", {})
    rows = [
        ("kernels", f"{tl['kernels']:,} on {len(tl.get('streams', {}))} stream(s); {tl.get('memcpy', 0)} memcpy, "
                    f"{tl.get('memset', 0)} memset"),
        ("span / busy / idle", f"{seconds(tl['span_s'])} / {seconds(tl['busy_s'])} / {seconds(tl['idle_s'])} "
                               f"({tl.get('idle_share', 0):.1%} idle)"),
        ("largest gap", _largest_gap(tl)),
        ("gaps: host / sync / copy / other", " / ".join(seconds(tl.get(k, 0.0)) for k in GAP_CAUSES)),
        ("communication", f"{tl['nccl_kernels']} kernels, {seconds(tl['nccl_s'])} (union), "
                          f"{seconds(tl['comm_compute_overlap_s'])} under compute"),
        ("unjoined kernels", f"{tl['unjoined_kernels']:,} ({tl.get('unjoined_share', 0):.1%}) without a launch call"),
        ("launch", f"median kernel {seconds(launch.get('kernel_median_s', float('nan')))}, median call "
                   f"{seconds(launch.get('call_median_s', float('nan')))}, median launch→start "
                   f"{seconds(launch.get('delay_median_s', float('nan')))}"),
        ("CUDA graphs", f"{graphs.get('graph_launches', 0)} replays, {graphs.get('graph_kernels', 0)} kernels"),
    ]  # fmt: skip
    if tl.get("host_side") is False:  # an nsys GPU trace: no launch calls to join, gaps not split by cause
        rows[5:7] = [("host side", "none in this file (GPU activities only): gaps are not split by cause")]
    return pairs_table(rows, width)


STEP_LAYOUTS = [
    [
        Column("step", justify="left", shorten=True),
        Column("activities", "GPU activities"),
        *(Column(k, k[:-2].replace("_", "-")) for k in ("span_s", "idle_s", "compute_s", "non_compute_s")),
    ]
]


def steps_table(steps: dict[str, Any], width: int = 220) -> RenderableType:
    """One row per ProfilerStep; the last step is marked."""
    rows: list[dict[str, Cell]] = [
        {
            "step": Text(s["step"] + (" (last)" if s.get("last") else "")),
            "activities": f"{s['activities']:,}",
            **{k: seconds(s[k]) for k in ("span_s", "idle_s", "compute_s", "non_compute_s") if k in s},
        }
        for s in steps.get("steps", [])
    ]
    return fit_table(STEP_LAYOUTS, rows, width)


BREAKDOWN_LAYOUTS = [[Column("class", justify="left", shorten=True), Column("time"), Column("share"),
                      Column("instances")]]  # fmt: skip


def breakdown_title(breakdown: dict[str, Any]) -> str:
    """'12 kernel names, 1,640 instances, 179 ms'."""
    return f"{breakdown['kernel_names']} kernel names, {breakdown['instances']:,} instances, " + seconds(
        breakdown["total_s"]
    )


def breakdown_table(breakdown: dict[str, Any], width: int = 220) -> RenderableType:
    """Kernel time per class group (nsys summaries)."""
    rows: list[dict[str, Cell]] = [
        {"class": Text(key), "time": seconds(e["time_s"]), "share": f"{e['share']:.1%}",
         "instances": f"{e['instances']:,}"}
        for key, e in breakdown["classes"].items()
    ]  # fmt: skip
    return fit_table(BREAKDOWN_LAYOUTS, rows, width, breakdown_title(breakdown))


def result_heading(w: dict[str, Any]) -> str:
    """'kineto · trace.json.gz · rank 0 · NVIDIA A100'; ' · device 1' where the file held several GPUs."""
    title = f"{w.get('source')} · {w.get('file')}" + (f" · rank {w['rank']}" if w.get("rank") is not None else "")
    title += f" · device {w['device_index']}" if w.get("device_index") is not None else ""
    return title + (f" · {w['device']}" if w.get("device") else "")


def render_import(run: Run, console: Console, top: int = TOP) -> None:
    """Print every imported result with its sections and findings (``top`` points per result)."""
    roofs, width = run.roofs, console.width
    used = {p.dtype for result in run.results for p in result.points}  # the roofs the points sit under
    shown = [r for r in roofs.compute if r.dtype in used] or roofs.compute[:3]
    roof_text = ", ".join(f"{r.dtype} {si(r.flop_per_s, 'FLOP/s')}" for r in shown)
    mem_text = ", ".join(f"{r.level} {si(r.bytes_per_s, 'B/s')} ({r.kind.value})" for r in roofs.memory)
    if roof_text or mem_text:
        line = f"roofs: {roofs.name}: {roof_text or 'no compute roof'}; {mem_text or 'no memory roof'}"
    else:  # short enough for 80 columns with the hint ("pass -H a100-80gb-sxm" was cut in two)
        line = "roofs: none (unknown device)" if roofs.name == "unknown" else f"roofs: none for {roofs.name}"
        line += _hardware_hint(run)
    print_line(console, line, "dim")
    for result in run.results:
        console.print()
        print_line(console, result_heading(result.workload), "bold")
        console.print(points_table(result, roofs, top, width))
        if "timeline" in result.extra:
            console.print()
            console.print(timeline_table(result.extra["timeline"], width))
        if result.extra.get("steps", {}).get("steps"):
            console.print()
            console.print(steps_table(result.extra["steps"], width))
        if "breakdown" in result.extra:
            console.print()
            console.print(breakdown_table(result.extra["breakdown"], width))
        if result.findings:
            console.print()
            console.print(findings_group(result.findings, width))
    skipped = run.identity.get("skipped_files") or {}
    for name, why in skipped.items():
        print_line(console, f"skipped {name}: {why}", "dim")


def _hardware_hint(run: Run) -> str:
    """'; pass -H a100-80gb-sxm': the catalog devices the traces' GPU names point to (each named when several)."""
    from rooftop.hardware.catalog import devices_named

    names = [n for n in dict.fromkeys(str(r.workload.get("device") or "") for r in run.results) if n]
    hints = {name: " or ".join(ids) for name in names if (ids := devices_named(name))}
    if len(names) == 1 and hints:  # the line already names it
        return f"; pass -H {hints[names[0]]}"
    return "; pass " + ", ".join(f"-H {ids} ({name})" for name, ids in hints.items()) if hints else ""
