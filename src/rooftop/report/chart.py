"""Roofline chart geometry shared by the static (matplotlib) and interactive (plotly) charts.

Pure data, no plotting library: roof lines (one compute ceiling per distinct dtype peak, one
memory ceiling per level — HBM, L2, link — when the roofs have them), ridge points, and the
points placed at (intensity, achieved FLOP/s), coloured by phase, marked by source and sized by
their share of their result's time. Points that a log-log chart cannot place are pinned to an
edge and say so: no FLOPs (bottom-left corner), no HBM bytes (right edge), no time (on the roof).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rooftop.core.artifact import Result, Run
from rooftop.core.points import RooflinePoint
from rooftop.core.roofs import RoofKind, Roofs
from rooftop.errors import RooftopError
from rooftop.units import seconds, si

PHASE_COLOURS = {"prefill": "#d95f02", "decode": "#1b78b4", "mixed": "#7570b3", "unknown": "#666666"}
# source -> (matplotlib marker, plotly symbol)
SOURCE_MARKERS = {
    "analytic": ("o", "circle"),
    "measured": ("s", "square"),
    "trace": ("D", "diamond"),
    "ncu": ("^", "triangle-up"),
    "nsys": ("v", "triangle-down"),
    "microbench": ("*", "star"),
    "live": ("X", "x"),
}
# roof kind -> (matplotlib linestyle, plotly dash)
ROOF_DASH = {RoofKind.DATASHEET: ("-", "solid"), RoofKind.THEORETICAL: ("--", "dash"), RoofKind.MEASURED: (":", "dot")}
EDGE = 1.4  # pinned points sit this factor inside the axis edge
LEVEL_COLOURS = {"hbm": "#444444", "l2": "#8c564b", "l1": "#bcbd22", "link": "#9467bd", "pcie": "#17becf"}


@dataclass(frozen=True)
class RoofLine:
    """One ceiling as a two-point segment in (FLOP/B, FLOP/s)."""

    label: str
    family: str  # "compute" | "memory"
    kind: RoofKind
    source: str
    xs: tuple[float, float]
    ys: tuple[float, float]
    colour: str


@dataclass(frozen=True)
class Ridge:
    """Where a compute ceiling meets the HBM ceiling."""

    label: str
    x: float
    y: float


@dataclass(frozen=True)
class ChartPoint:
    """A point where the chart draws it, plus what the hover shows."""

    x: float
    y: float
    share: float  # of its result's time, 0..1
    pinned: str  # "" or why the point sits on an edge
    point: RooflinePoint
    result: str
    efficiency: float

    @property
    def colour(self) -> str:
        """Colour of its phase."""
        return PHASE_COLOURS.get(self.point.phase.value, PHASE_COLOURS["unknown"])

    def hover_lines(self) -> list[str]:
        """Every field of the point, one 'name: value' per line (plain text, not escaped)."""
        p = self.point
        lines = [
            f"{p.label} ({p.op})",
            f"result: {self.result}",
            f"phase: {p.phase.value} · source: {p.source.value} · dtype: {p.dtype} · ×{p.count}",
            f"FLOPs: {si(p.flops, 'FLOP')}",
            f"bytes ({p.level}): {si(p.bytes, 'B')}",
        ]
        if p.traffic:
            t = p.traffic
            lines.append(
                f"  weights {si(t.weight_bytes, 'B')} · act {si(t.activation_bytes, 'B')} · "
                f"KV read {si(t.kv_read_bytes, 'B')} · KV write {si(t.kv_write_bytes, 'B')}"
            )
        if p.link_bytes:
            lines.append(f"link bytes: {si(p.link_bytes, 'B')}")
        lines += [
            f"intensity: {p.intensity:.4g} FLOP/B" if math.isfinite(p.intensity) else "intensity: ∞ (no HBM bytes)",
            f"time: {seconds(p.time_s) if p.time_s else '—'} ({self.share:.1%} of its result)",
            f"FLOP/s: {si(p.flop_per_s, 'FLOP/s')} · B/s: {si(p.bytes_per_s, 'B/s')}",
            f"roof efficiency: {self.efficiency:.1%}" if math.isfinite(self.efficiency) else "roof efficiency: —",
            f"bound: {p.bound or '—'}",
        ]
        shapes = p.provenance.get("workload")
        if isinstance(shapes, dict):
            lines.append(
                "shapes: " + ", ".join(f"{k} {shapes[k]}" for k in ("batch", "prompt", "context") if k in shapes)
            )
        if self.pinned:
            lines.append(f"drawn on the edge: {self.pinned}")
        return lines


@dataclass(frozen=True)
class Chart:
    """Everything a roofline chart draws."""

    title: str
    roofs: tuple[RoofLine, ...]
    ridges: tuple[Ridge, ...]
    points: tuple[ChartPoint, ...]
    x_range: tuple[float, float]
    y_range: tuple[float, float]


def result_label(result: Result) -> str:
    """Short label of a result: 'decode b=64 c=2048'."""
    w = result.workload
    if w.get("cohort"):
        return f"sweep {w.get('cohort')}"
    shape = f"p={w.get('prompt')}" if w.get("phase") == "prefill" else f"c={w.get('context')}"
    return f"{w.get('phase', '')} b={w.get('batch')} {shape}"


def _all_roofs(runs: Sequence[Run]) -> list[Roofs]:
    seen: list[Roofs] = []
    for run in runs:
        for roofs in (run.roofs, *run.extra_roofs):
            if roofs not in seen:
                seen.append(roofs)
    return seen


def _finite(values: list[float]) -> list[float]:
    return [v for v in values if math.isfinite(v) and v > 0]


def _ranges(runs: Sequence[Run], all_roofs: list[Roofs]) -> tuple[tuple[float, float], tuple[float, float]]:
    points = [p for run in runs for r in run.results for p in r.points]
    xs = _finite([p.intensity for p in points])
    ys = _finite([p.flop_per_s for p in points])
    peaks = _finite([c.flop_per_s for r in all_roofs for c in r.compute])
    bws = _finite([m.bytes_per_s for r in all_roofs for m in r.memory])
    top = max(peaks, default=1e15)
    ridge = max((top / b for b in bws), default=100.0)
    x_lo = min([0.1, *(x / 3 for x in xs)])
    x_hi = max([ridge * 10, *(x * 3 for x in xs)])
    y_lo = min([top / 1e5, *(y / 3 for y in ys)])
    return (x_lo, x_hi), (y_lo, top * 3)


def roof_lines(all_roofs: list[Roofs], x_range: tuple[float, float]) -> tuple[list[RoofLine], list[Ridge]]:
    """Compute ceilings (dtypes with equal peaks share a line) and memory ceilings, plus ridge points."""
    lines: list[RoofLine] = []
    ridges: list[Ridge] = []
    x_lo, x_hi = x_range
    several = len(all_roofs) > 1
    for roofs in all_roofs:
        prefix = f"{roofs.name} " if several else ""
        hbm = roofs.bandwidth("hbm") if roofs.has_memory("hbm") else None
        top = max((c.flop_per_s for c in roofs.compute), default=float("nan"))
        groups: dict[tuple[float, RoofKind], list[str]] = {}
        sources: dict[tuple[float, RoofKind], str] = {}
        for c in roofs.compute:
            groups.setdefault((c.flop_per_s, c.kind), []).append(c.dtype)
            sources.setdefault((c.flop_per_s, c.kind), c.source)
        for (peak, kind), dtypes in sorted(groups.items(), key=lambda kv: -kv[0][0]):
            start = max(x_lo, peak / hbm) if hbm else x_lo
            name = "/".join(dtypes)
            lines.append(
                RoofLine(
                    f"{prefix}{name} {si(peak, 'FLOP/s')} ({kind.value})",
                    "compute",
                    kind,
                    sources[(peak, kind)],
                    (start, x_hi),
                    (peak, peak),
                    "#222222",
                )
            )
            if hbm:
                ridges.append(Ridge(f"{prefix}ridge {name}: {peak / hbm:.0f} FLOP/B", peak / hbm, peak))
        for m in roofs.memory:
            end = min(x_hi, top / m.bytes_per_s) if math.isfinite(top) else x_hi
            lines.append(
                RoofLine(
                    f"{prefix}{m.level.upper()} {si(m.bytes_per_s, 'B/s')} ({m.kind.value})",
                    "memory",
                    m.kind,
                    m.source,
                    (x_lo, end),
                    (m.bytes_per_s * x_lo, m.bytes_per_s * end),
                    LEVEL_COLOURS.get(m.level, "#444444"),
                )
            )
    return lines, ridges


def _place(p: RooflinePoint, roofs: Roofs, x_range: tuple[float, float], y_lo: float) -> tuple[float, float, str]:
    if p.flops <= 0:
        return x_range[0] * EDGE, y_lo * EDGE, "no FLOPs"
    if p.bytes <= 0:
        y = p.flop_per_s if p.time_s else roofs.peak(p.dtype) if roofs.has_compute(p.dtype) else y_lo
        return x_range[1] / EDGE, y, "no HBM bytes (intensity ∞)"
    if not p.time_s:
        return p.intensity, p.attainable_flop_per_s(roofs), "no time: drawn on the roof"
    return p.intensity, p.flop_per_s, ""


def build_chart(runs: Sequence[Run], title: str = "") -> Chart:
    """Chart geometry for every point of every result of ``runs`` over all their roofs."""
    all_roofs = _all_roofs(runs)
    x_range, y_range = _ranges(runs, all_roofs)
    lines, ridges = roof_lines(all_roofs, x_range)
    points = []
    for run in runs:
        for result in run.results:
            total = sum(p.time_s or 0.0 for p in result.points) or 1.0
            label = result_label(result)
            for p in result.points:
                x, y, pinned = _place(p, run.roofs, x_range, y_range[0])
                try:
                    eff = p.roof_efficiency(run.roofs)
                except RooftopError:  # a dtype or level the roofs lack: no efficiency, still drawn
                    eff = float("nan")
                points.append(ChartPoint(x, y, (p.time_s or 0.0) / total, pinned, p, label, eff))
    if not title:
        names = sorted({str(r.workload.get("model", "")) for run in runs for r in run.results})
        title = f"Roofline — {', '.join(names)} on {', '.join(r.name for r in all_roofs)}"
    return Chart(title, tuple(lines), tuple(ridges), tuple(points), x_range, y_range)
