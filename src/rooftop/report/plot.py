"""Static roofline chart through matplotlib: the Figure is returned (never shown) or saved as PNG/SVG.

Log-log axes with SI ticks; one compute ceiling per dtype peak and one bandwidth ceiling per
memory level, each coloured and labelled on its line; ridge points marked; datasheet roofs
solid, theoretical dashed, measured dotted; points coloured by result (workload), shaped by
source, sized by their share of their result's time, the top operators by time named; points
with no FLOPs or bytes listed under the chart; the legend outside the data. matplotlib is imported
here only, lazily, and never through pyplot (no global figure state, no window).
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rooftop.core.artifact import Run
from rooftop.core.atomic import write_atomic
from rooftop.errors import ReportError
from rooftop.report import FORMATS
from rooftop.report.chart import (
    RESULT_COLOURS,
    ROOF_DASH,
    SOURCE_MARKERS,
    TOP_NAMED,
    Chart,
    ChartPoint,
    build_chart,
)
from rooftop.units import si

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SIZE_IN = (10.0, 6.5)
DPI = 100  # a saved PNG is SIZE_IN × DPI = 1000 × 650 pixels


def plain(text: str) -> str:
    """``text`` as matplotlib draws it literally: every ``$`` escaped, so no mathtext is parsed.

    Names come from users (a model folder ``$x^$``, a ``--title``, a catalog device); unescaped,
    matplotlib reads ``$...$`` as TeX and a malformed one raises while saving the figure.
    """
    return text.replace("$", r"\$")


def _si_axes(ax: Any) -> None:
    """Ticks in SI units: '1 TFLOP/s', '100 GFLOP/s'; intensities as plain numbers."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    ax.yaxis.set_major_locator(LogLocator(base=10))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: si(v, "FLOP/s")))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


LABEL_PT = 9.0  # a 7-pt label's height with its gap


def _height_pt(ax: Any, x: float, y: float) -> float:
    """Where (x, y) is on the canvas, in points up from the bottom."""
    return float(ax.transData.transform((x, y))[1] * 72.0 / ax.figure.dpi)


def _free_offset(ax: Any, y: float, taken: list[tuple[float, float]]) -> float:
    """Vertical offset (pt) of a compute roof's label: above its line, else below, else above the others.

    Two ceilings within a few per cent of each other (an H200's bf16 784 and fp16 753 TFLOP/s)
    put their labels on top of each other; the later one goes below its line instead.
    """
    at = _height_pt(ax, 1.0, y)
    for dy in (2.0, -2.0 - LABEL_PT):
        low = at + dy
        if all(low + LABEL_PT <= a + 1.0 or low >= b - 1.0 for a, b in taken):  # touching is fine
            taken.append((low, low + LABEL_PT))
            return dy
    top = max(b for _, b in taken)
    taken.append((top, top + LABEL_PT))
    return top - at


def _crowded_above(ax: Any, line: Any, roofs: Sequence[Any]) -> bool:
    """Whether a higher memory roof runs within two label heights above ``line`` on screen."""
    x = line.xs[0]
    here = _height_pt(ax, x, line.ys[0])
    for other in roofs:
        if other is line or other.family == "compute":
            continue
        there = _height_pt(ax, x, x * other.ys[0] / other.xs[0])
        if 0.0 < there - here < 2 * LABEL_PT:
            return True
    return False


def _draw_roofs(ax: Any, chart: Chart) -> None:
    """Each roof in its colour; ridge points marked."""
    for line in chart.roofs:
        ax.plot(line.xs, line.ys, linestyle=ROOF_DASH[line.kind][0], color=line.colour, linewidth=1.5, zorder=2)
    for ridge in chart.ridges:
        ax.plot([ridge.x], [ridge.y], marker="|", markersize=12, color="#555555", linestyle="none")
        ax.annotate(f"{ridge.x:.0f}", (ridge.x, ridge.y), xytext=(3, -11), textcoords="offset points", fontsize=6)


def _label_roofs(ax: Any, chart: Chart) -> None:
    """Each roof labelled on its line; memory labels follow its slope on screen.

    Called once the layout is done: the slope on screen depends on the axes' final shape.
    """
    import math

    memory_lines = 0
    taken: list[tuple[float, float]] = []  # screen heights (pt) of the compute labels drawn so far
    for line in chart.roofs:
        if line.family == "compute":
            dy = _free_offset(ax, line.ys[1], taken)
            ax.annotate(plain(line.label), (line.xs[1], line.ys[1]), xytext=(-4, dy), textcoords="offset points",
                        fontsize=7, ha="right", va="bottom", color=line.colour, zorder=5,
                        bbox={"boxstyle": "square,pad=0.05", "fc": "white", "ec": "none", "alpha": 0.7})  # fmt: skip
            continue
        shift = 1.5 * 2.5**memory_lines  # each memory roof's label further along its line
        memory_lines += 1
        x0, y0 = line.xs[0] * shift, line.ys[0] * shift
        (px0, py0), (px1, py1) = ax.transData.transform([(line.xs[0], line.ys[0]), (line.xs[1], line.ys[1])])
        angle = math.degrees(math.atan2(py1 - py0, px1 - px0))
        below = _crowded_above(ax, line, chart.roofs)  # L2 a few points above HBM: HBM's label goes under its line
        ax.annotate(plain(line.label), (x0, y0), xytext=(0, -3 if below else 3), textcoords="offset points",
                    fontsize=7, ha="left", va="top" if below else "bottom", color=line.colour, rotation=angle,
                    rotation_mode="anchor")  # fmt: skip


def _draw_points(ax: Any, chart: Chart) -> None:
    """One colour per result, one marker per source, size by share of time; the top operators named."""
    groups: dict[tuple[int, str], list[int]] = {}
    for k, cp in enumerate(chart.points):
        groups.setdefault((cp.result_index, cp.point.source.value), []).append(k)
    for (_index, source), members in groups.items():
        pts = [chart.points[k] for k in members]
        ax.scatter([p.x for p in pts], [p.y for p in pts], s=[16 + 400 * p.share for p in pts], c=pts[0].colour,
                   marker=SOURCE_MARKERS.get(source, ("o", "circle"))[0], alpha=0.8, edgecolors="white",
                   linewidths=0.5, zorder=3)  # fmt: skip
    places: list[list[str]] = []  # the top operators, grouped by where they are drawn: one label a place
    anchors: list[ChartPoint] = []
    for cp in chart.top(3 * TOP_NAMED):
        home = next((k for k, a in enumerate(anchors) if _near(cp, a)), None)
        if home is None and len(anchors) < TOP_NAMED:
            anchors.append(cp)
            places.append([cp.point.label])
        elif home is not None and cp.point.label not in places[home]:
            places[home].append(cp.point.label)
    arrow = {"arrowstyle": "-", "color": "#999", "lw": 0.5}
    for n, (cp, names) in enumerate(zip(anchors, places)):
        ax.annotate(plain(_place_name(names)), (cp.x, cp.y), xytext=(8, -12 + 9 * (n % 3)), textcoords="offset points",
                    fontsize=7, color="#222222", zorder=4, arrowprops=arrow)  # fmt: skip


def _near(a: ChartPoint, b: ChartPoint) -> bool:
    """Drawn at (almost) the same place: one label for both (162 ncu launches of one kernel overlapped)."""
    return 1 / 1.3 < a.x / b.x < 1.3 and 1 / 1.3 < a.y / b.y < 1.3


def _place_name(names: list[str], width: int = 40) -> str:
    """The names drawn at one place, as many as fit in ``width`` characters, then '+N more'.

    'gate_proj, up_proj, down_proj +5 more'; a first name longer than the width is cut with '…'.
    """
    shown = [names[0] if len(names[0]) <= width - 12 else names[0][: width - 13] + "…"]
    for name in names[1:]:
        if len(", ".join([*shown, name])) > width - 8:
            break
        shown.append(name)
    rest = len(names) - len(shown)
    return ", ".join(shown) + (f" +{rest} more" if rest else "")


def _legend(fig: Any, chart: Chart) -> None:
    """Outside the data, right of the axes: one entry per result, the sources, the roof kinds."""
    from matplotlib.lines import Line2D

    labels = [plain(textwrap.shorten(r, 40, placeholder="…")) for r in chart.results]
    handles = [Line2D([], [], color=RESULT_COLOURS[k % len(RESULT_COLOURS)], marker="o", linestyle="none",
                      label=label) for k, label in enumerate(labels)]  # fmt: skip
    sources = sorted({p.point.source.value for p in chart.points})
    if len(sources) > 1:
        handles += [Line2D([], [], color="#555555", marker=SOURCE_MARKERS.get(s, ("o",))[0], linestyle="none",
                           label=s) for s in sources]  # fmt: skip
    handles += [
        Line2D([], [], color="#555555", linestyle=d[0], label=f"{k.value} roof")  # type: ignore[arg-type]
        for k, d in ROOF_DASH.items()
        if any(r.kind is k for r in chart.roofs)
    ]
    fig.legend(handles=handles, loc="outside right upper", fontsize=8, title="size = share of time",
               title_fontsize=7)  # fmt: skip


def _unplaced_note(chart: Chart) -> str:
    names = ", ".join(sorted({p.point.label for p in chart.unplaced}))
    if len(names) > 160:
        names = names[:159] + "…"
    return f"not drawn (no FLOPs or no bytes, so no intensity): {names}" if names else ""


def kernel_figure(chart: Chart) -> Figure:
    """Files without FLOP counts: the kernels ranked by time, and why there is no roofline."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=SIZE_IN, dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    top = chart.by_time()
    names = [p.point.label if len(p.point.label) <= 60 else p.point.label[:59] + "…" for p in top]
    ax.barh(range(len(top)), [(p.point.time_s or 0.0) * 1e3 for p in top], color=[p.colour for p in top])
    ax.set_yticks(range(len(top)), [plain(n) for n in names], fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel("time (ms)")
    ax.set_title(plain(chart.title.replace("Roofline", "Kernels by time")), fontsize=10)
    fig.supxlabel(plain(chart.no_roofline), fontsize=8, x=0.01, ha="left")
    return fig


def figure_from_chart(chart: Chart) -> Figure:
    """Draw ``chart`` on a new matplotlib Figure and return it (the kernel chart when nothing has FLOPs)."""
    from matplotlib.figure import Figure

    if chart.no_roofline:
        return kernel_figure(chart)
    fig = Figure(figsize=SIZE_IN, dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*chart.x_range)
    ax.set_ylim(*chart.y_range)
    _si_axes(ax)
    _draw_roofs(ax, chart)
    _draw_points(ax, chart)
    ax.set_xlabel(chart.x_title)
    ax.set_ylabel("performance")
    ax.set_title(plain(chart.title), fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    _legend(fig, chart)
    note = "\n".join(textwrap.fill(x, 180) for x in (_unplaced_note(chart), *chart.notes) if x)
    if note:
        fig.supxlabel(plain(note), fontsize=7, x=0.01, ha="left", color="#555555")
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)  # the axes' final shape, for the labels' slopes
    _label_roofs(ax, chart)
    return fig


def roofline_figure(runs: Sequence[Run], title: str = "") -> Figure:
    """The roofline of every point of ``runs`` (a Figure, not shown)."""
    return figure_from_chart(build_chart(runs, title))


def render_plot(runs: Sequence[Run], path: str | Path, title: str = "") -> bytes:
    """The roofline of ``runs`` as PNG or SVG bytes; the format comes from ``path``'s suffix."""
    target = Path(path)
    fmt = target.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise ReportError(f"{target}: the file must end in .png or .svg, not {target.suffix or 'nothing'}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ReportError("plots need matplotlib: pip install 'rooftop[report]'") from None
    buffer = io.BytesIO()
    roofline_figure(runs, title).savefig(buffer, format=fmt)
    return buffer.getvalue()


def save_plot(runs: Sequence[Run], path: str | Path, title: str = "") -> Path:
    """Save the roofline of ``runs`` to ``path`` (written whole or not at all)."""
    return write_atomic(path, render_plot(runs, path, title), ReportError)
