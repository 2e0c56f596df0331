"""Static roofline chart through matplotlib: the Figure is returned (never shown) or saved as PNG/SVG.

Log-log axes; one compute ceiling per dtype peak and one bandwidth ceiling per memory level;
ridge points marked; datasheet roofs solid, theoretical dashed, measured dotted; points coloured
by phase, shaped by source, sized by their share of their result's time. matplotlib is imported
here only, lazily, and never through pyplot (no global figure state, no window).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rooftop.core.artifact import Run
from rooftop.core.atomic import write_atomic
from rooftop.errors import ReportError
from rooftop.report.chart import PHASE_COLOURS, ROOF_DASH, SOURCE_MARKERS, Chart, build_chart

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = ("png", "svg")
PLOT_SUFFIXES = tuple(f".{f}" for f in FORMATS)
SIZE_IN = (10.0, 6.5)
DPI = 100  # a saved PNG is SIZE_IN × DPI = 1000 × 650 pixels


def plain(text: str) -> str:
    """``text`` as matplotlib draws it literally: every ``$`` escaped, so no mathtext is parsed.

    Names come from users (a model folder ``$x^$``, a ``--title``, a catalog device); unescaped,
    matplotlib reads ``$...$`` as TeX and a malformed one raises while saving the figure.
    """
    return text.replace("$", r"\$")


def figure_from_chart(chart: Chart) -> Figure:
    """Draw ``chart`` on a new matplotlib Figure and return it."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    fig = Figure(figsize=SIZE_IN, dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*chart.x_range)
    ax.set_ylim(*chart.y_range)
    for line in chart.roofs:
        ax.plot(
            line.xs,
            line.ys,
            linestyle=ROOF_DASH[line.kind][0],
            color=line.colour,
            linewidth=1.4,
            label=plain(line.label),
        )
        if line.family == "compute":
            ax.annotate(
                plain(line.label), (line.xs[1], line.ys[1]), fontsize=7, ha="right", va="bottom", color=line.colour
            )
        else:
            x_text = line.xs[0] * 1.6
            ax.annotate(
                plain(line.label),
                (x_text, line.ys[0] * 1.6 * 1.25),
                fontsize=7,
                ha="left",
                va="bottom",
                color=line.colour,
                rotation=26,
                rotation_mode="anchor",
            )
    for ridge in chart.ridges:
        ax.plot([ridge.x], [ridge.y], marker="|", markersize=14, color="#222222", linestyle="none")
        ax.annotate(f"{ridge.x:.0f}", (ridge.x, ridge.y), xytext=(3, -11), textcoords="offset points", fontsize=6)
    groups: dict[tuple[str, str], list[int]] = {}
    for k, cp in enumerate(chart.points):
        groups.setdefault((cp.point.phase.value, cp.point.source.value), []).append(k)
    for (phase, source), members in groups.items():
        pts = [chart.points[k] for k in members]
        ax.scatter(
            [p.x for p in pts],
            [p.y for p in pts],
            s=[16 + 400 * p.share for p in pts],
            c=PHASE_COLOURS.get(phase, PHASE_COLOURS["unknown"]),
            marker=SOURCE_MARKERS.get(source, ("o", "circle"))[0],
            alpha=0.75,
            edgecolors="white",
            linewidths=0.5,
            zorder=3,
        )
    ax.set_xlabel("arithmetic intensity (FLOP per HBM byte)")
    ax.set_ylabel("performance (FLOP/s)")
    ax.set_title(plain(chart.title), fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    handles = [
        Line2D([], [], color=c, marker="o", linestyle="none", label=ph)
        for ph, c in PHASE_COLOURS.items()
        if any(p.point.phase.value == ph for p in chart.points)
    ]
    handles += [
        Line2D([], [], color="#555555", marker=m[0], linestyle="none", label=src)
        for src, m in SOURCE_MARKERS.items()
        if any(p.point.source.value == src for p in chart.points)
    ]
    handles += [
        Line2D([], [], color="#222222", linestyle=d[0], label=f"{k.value} roof")  # type: ignore[arg-type]
        for k, d in ROOF_DASH.items()
        if any(r.kind is k for r in chart.roofs)
    ]
    ax.legend(handles=handles, loc="lower right", fontsize=8, title="size = share of time", title_fontsize=7)
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
