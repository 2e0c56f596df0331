"""Roofline chart geometry shared by the static (matplotlib) and interactive (plotly) charts.

Pure data, no plotting library: roof lines (one compute ceiling per distinct dtype peak, each
its own colour; one memory ceiling per level — HBM (DRAM on a CPU), L2, link — when the roofs
have them), ridge points, and the points placed at (intensity, achieved FLOP/s), coloured by
their result (one colour per workload), marked by source and sized by their share of their
result's time. Points a log-log chart cannot place (no FLOPs, no bytes) are not drawn at made-up
coordinates: they are listed under the chart (``Chart.unplaced``). A file without FLOP counts
(an nsys kernel summary) gets a time-ranked kernel chart instead, and a sentence saying why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import msgspec

from rooftop.core.artifact import Run
from rooftop.core.frames import result_label
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
LEVEL_COLOURS = {"hbm": "#444444", "l2": "#8c564b", "l1": "#bcbd22", "link": "#9467bd", "pcie": "#17becf"}
# compute roofs, highest peak first (warm colours: compute); results (workloads) in a qualitative palette
COMPUTE_COLOURS = ("#b2182b", "#d6604d", "#e08214", "#b35806", "#8e0152", "#c51b7d", "#7f3b08")
RESULT_COLOURS = ("#1b78b4", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666")
TOP_NAMED = 6  # the static chart names this many operators by time


def memory_name(level: str, roofs: Roofs) -> str:
    """The memory level's display name: HBM on accelerators, DRAM on a CPU."""
    if level == "hbm" and (roofs.name.lower().startswith("cpu") or roofs.vendor.lower() in ("cpu", "intel", "amd")):
        return "DRAM"
    return level.upper()


class RoofLine(msgspec.Struct, frozen=True):
    """One ceiling as a two-point segment in (FLOP/B, FLOP/s)."""

    label: str
    family: str  # "compute" | "memory"
    kind: RoofKind
    source: str
    xs: tuple[float, float]
    ys: tuple[float, float]
    colour: str


class Ridge(msgspec.Struct, frozen=True):
    """Where a compute ceiling meets the HBM ceiling."""

    label: str
    x: float
    y: float


class ChartPoint(msgspec.Struct, frozen=True):
    """A point where the chart draws it, plus what the hover shows."""

    x: float
    y: float
    share: float  # of its result's time, 0..1
    pinned: str  # "" or why the point sits on an edge
    point: RooflinePoint
    result: str
    efficiency: float
    result_index: int = 0

    @property
    def colour(self) -> str:
        """Colour of its result (one per workload: decode at batch 1 and at batch 64 differ)."""
        return RESULT_COLOURS[self.result_index % len(RESULT_COLOURS)]

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
            f"intensity: {p.intensity:.4g} FLOP/B" if math.isfinite(p.intensity) else _no_intensity(p),
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


class Chart(msgspec.Struct, frozen=True):
    """Everything a roofline chart draws."""

    title: str
    roofs: tuple[RoofLine, ...]
    ridges: tuple[Ridge, ...]
    points: tuple[ChartPoint, ...]
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    unplaced: tuple[ChartPoint, ...] = ()  # no FLOPs or no bytes: listed under the chart, not drawn
    results: tuple[str, ...] = ()  # one legend entry per result, in colour order
    memory_label: str = "HBM"  # the bytes of the x axis: 'HBM', 'DRAM', or 'HBM / L2 / L1' (each point's own)
    no_roofline: str = ""  # why there is no roofline (no point has FLOPs); the kernel bar chart instead
    notes: tuple[str, ...] = ()  # e.g. kernels whose own precision has no roof among those drawn

    @property
    def x_title(self) -> str:
        """The x axis: 'arithmetic intensity (FLOP per HBM byte)'; several levels say each point is at its own."""
        levels = " (each point at its memory level)" if "/" in self.memory_label else ""
        return f"arithmetic intensity (FLOP per {self.memory_label} byte){levels}"

    def top(self, n: int = TOP_NAMED) -> list[ChartPoint]:
        """The ``n`` drawn points that take the most time (named on the static chart)."""
        return sorted(self.points, key=lambda p: -(p.point.time_s or 0.0))[:n]

    def by_time(self, n: int = 25) -> list[ChartPoint]:
        """Every point (drawn or not) by time, longest first: the kernel chart of files without FLOPs."""
        return sorted((*self.points, *self.unplaced), key=lambda p: -(p.point.time_s or 0.0))[:n]


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
        colours = iter(COMPUTE_COLOURS * 3)
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
                    next(colours),
                )
            )
            if hbm:
                ridges.append(Ridge(f"{prefix}ridge {name}: {peak / hbm:.0f} FLOP/B", peak / hbm, peak))
        for m in roofs.memory:
            end = min(x_hi, top / m.bytes_per_s) if math.isfinite(top) else x_hi
            lines.append(
                RoofLine(
                    f"{prefix}{memory_name(m.level, roofs)} {si(m.bytes_per_s, 'B/s')} ({m.kind.value})",
                    "memory",
                    m.kind,
                    m.source,
                    (x_lo, end),
                    (m.bytes_per_s * x_lo, m.bytes_per_s * end),
                    LEVEL_COLOURS.get(m.level, "#444444"),
                )
            )
    return merge_shared(lines, [r.name for r in all_roofs] if several else []), ridges


def merge_shared(lines: list[RoofLine], devices: list[str]) -> list[RoofLine]:
    """One line for a roof several devices share (same value, kind and name): its label names them all.

    Two devices with equal compute peaks (an H100 and an H200) would otherwise draw ten labels on five lines.
    """
    merged: dict[tuple[str, float, RoofKind, str], RoofLine] = {}
    owners: dict[tuple[str, float, RoofKind, str], list[str]] = {}
    for line in lines:
        device = next((d for d in devices if line.label.startswith(d + " ")), "")
        bare = line.label.removeprefix(device + " ") if device else line.label
        value = line.ys[0] if line.family == "compute" else line.ys[0] / line.xs[0]
        key = (line.family, value, line.kind, bare)
        owners.setdefault(key, []).append(device)
        first = merged.get(key)
        if first is None or line.xs[0] < first.xs[0]:
            merged[key] = RoofLine(bare, line.family, line.kind, line.source, line.xs, line.ys, line.colour)
    out = []
    for key, line in merged.items():
        names = [d for d in owners[key] if d]
        label = f"{', '.join(names)} {line.label}" if names else line.label
        out.append(RoofLine(label, line.family, line.kind, line.source, line.xs, line.ys, line.colour))
    return out


def _no_intensity(p: RooflinePoint) -> str:
    """The tooltip line of a point without a finite intensity."""
    return f"intensity: ∞ (no {p.level.upper()} bytes)" if p.flops > 0 else "intensity: — (no FLOPs, no bytes)"


def _place(p: RooflinePoint, roofs: Roofs) -> tuple[float, float, str]:
    """Where the point goes, or why it cannot go on a log-log chart (then x = y = nan)."""
    if p.flops <= 0:
        return float("nan"), float("nan"), "no FLOPs (intensity 0): not on a log-log roofline"
    if p.bytes <= 0:
        return float("nan"), float("nan"), f"no {p.level.upper()} bytes (intensity ∞): not on a log-log roofline"
    if not p.time_s:
        return p.intensity, p.attainable_flop_per_s(roofs), "no time: drawn on the roof"
    return p.intensity, p.flop_per_s, ""


def _efficiency(p: RooflinePoint, roofs: Roofs) -> float:
    try:
        return p.roof_efficiency(roofs)
    except RooftopError:  # a dtype or level the roofs lack: no efficiency, still drawn
        return float("nan")


def build_chart(runs: Sequence[Run], title: str = "") -> Chart:
    """Chart geometry for every point of every result of ``runs`` over all their roofs."""
    all_roofs = _all_roofs(runs)
    x_range, y_range = _ranges(runs, all_roofs)
    lines, ridges = roof_lines(all_roofs, x_range)
    drawn: list[ChartPoint] = []
    unplaced: list[ChartPoint] = []
    labels: list[str] = []
    several = len(runs) > 1
    for n, run in enumerate(runs):
        for result in run.results:
            total = sum(p.time_s or 0.0 for p in result.points) or 1.0
            label = (f"run {n + 1}: " if several else "") + result_label(result)
            labels.append(label)
            for p in result.points:
                x, y, pinned = _place(p, run.roofs)
                cp = ChartPoint(x, y, (p.time_s or 0.0) / total, pinned, p, label, _efficiency(p, run.roofs),
                                len(labels) - 1)  # fmt: skip
                (drawn if math.isfinite(x) else unplaced).append(cp)
    if not title:
        names = sorted({str(r.workload.get("model") or "") for run in runs for r in run.results} - {""})
        if not names:  # imports: the files' names (and no 'unknown' device)
            names = sorted({Path(str(r.workload.get("file") or "")).name for run in runs for r in run.results} - {""})
        devices = [r.name for r in all_roofs if r.name != "unknown"]
        title = "Roofline — " + " on ".join(x for x in (", ".join(names[:3]), ", ".join(devices)) if x)
    memory = ", ".join(sorted({memory_name("hbm", r) for r in all_roofs}))
    cached = sorted({p.point.level for p in drawn} - {"hbm"}, reverse=True)  # ncu's L2 and L1 points
    memory = " / ".join([memory, *(level.upper() for level in cached)])
    why = ""
    if not drawn and unplaced:
        nsys = all(p.point.source.value == "nsys" for p in unplaced)
        cause = ("Nsight Systems gives kernel times, not FLOPs or bytes" if nsys else
                 "no operator recorded shapes rooftop has a FLOP formula for")  # fmt: skip
        why = (
            f"No roofline: none of the {len(unplaced)} points has a FLOP count ({cause}), so none has an "
            "intensity; the chart ranks them by time instead."
        )
    return Chart(title, tuple(lines), tuple(ridges), tuple(drawn), x_range, y_range, tuple(unplaced),
                 tuple(labels), memory, why, precision_notes(runs))  # fmt: skip


def precision_notes(runs: Sequence[Run]) -> tuple[str, ...]:
    """Points whose dtype has no compute roof in their run's roofs: the roofs drawn are not their ceiling."""
    notes = []
    for run in runs:
        have = [c.dtype for c in run.roofs.compute]
        missing: dict[str, list[str]] = {}
        for r in run.results:
            for p in r.points:
                if p.flops > 0 and p.dtype and have and not run.roofs.has_compute(p.dtype):
                    missing.setdefault(p.dtype, []).append(p.label)
        for dtype, labels in missing.items():
            names = ", ".join(sorted(set(labels))[:3]) + (" …" if len(set(labels)) > 3 else "")
            notes.append(
                f"{len(labels)} {dtype} point(s) ({names}) have no {dtype} roof in {run.roofs.name} (it has "
                f"{', '.join(have)} only): their ceiling is the {dtype} (tensor-core) roof, not the ones drawn; "
                "pass --hardware DEVICE to draw it"
            )
    return tuple(notes)
