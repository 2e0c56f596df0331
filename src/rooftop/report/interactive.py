"""Interactive charts through plotly: the roofline (hover shows the whole point) and the sweep charts.

plotly renders a subset of HTML in text, hover and legend strings, so every string that came
from input is HTML-escaped here before it reaches a figure (plotly shows the entities as text).
Traces carry ``meta`` tags ('roof', 'ridge', 'ops', 'slo', 'operating-point') so tests and
scripts can find them.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rooftop.core.artifact import Result
from rooftop.report.chart import ROOF_DASH, SOURCE_MARKERS, Chart
from rooftop.report.sweep_table import sweep_rows
from rooftop.units import si

if TYPE_CHECKING:
    import plotly.graph_objects as go

ROOF_SLOPE_DEG = 28  # a bandwidth roof's on-screen slope at the default aspect (labels follow it)
BOUND_ORDER = ("compute", "memory:weights", "memory:kv", "memory:activations", "link", "does not fit")
BOUND_COLOURS = ("#d62728", "#1f77b4", "#17becf", "#bcbd22", "#9467bd", "#dddddd")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _roof_traces(fig: Any, chart: Chart) -> None:
    """Each roof in its colour, with its label written on the line (hover: its source)."""
    import plotly.graph_objects as go

    for line in chart.roofs:
        fig.add_trace(
            go.Scatter(x=list(line.xs), y=list(line.ys), mode="lines", name=_e(line.label), meta="roof",
                       showlegend=False, line={"color": line.colour, "dash": ROOF_DASH[line.kind][1], "width": 1.5},
                       hovertext=_e(f"{line.label} — source: {line.source or 'n/a'}"), hoverinfo="text")
        )  # fmt: skip
        compute = line.family == "compute"
        x, y = (line.xs[1], line.ys[1]) if compute else (line.xs[0] * 1.6, line.ys[0] * 1.6)
        fig.add_annotation(x=math.log10(x), y=math.log10(y), text=_e(line.label), showarrow=False,
                           xanchor="right" if compute else "left", yanchor="bottom", font={"size": 10,
                           "color": line.colour}, textangle=0 if compute else -ROOF_SLOPE_DEG)  # fmt: skip


def _si_ticks(lo: float, hi: float, unit: str) -> dict[str, Any]:
    """Decade ticks written in SI units ('1 TFLOP/s'), never '10¹⁵' or '100T'."""
    decades = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
    values = [10.0**d for d in decades]
    return {"tickvals": values, "ticktext": [si(v, unit) if unit else f"{v:g}" for v in values]}


def roofline_plotly(chart: Chart) -> go.Figure:
    """The roofline as a plotly Figure (log-log, roofs coloured and labelled, one colour per result)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    _roof_traces(fig, chart)
    if chart.ridges:
        fig.add_trace(
            go.Scatter(x=[r.x for r in chart.ridges], y=[r.y for r in chart.ridges], mode="markers",
                       name="ridge points", meta="ridge", showlegend=False,
                       marker={"symbol": "line-ns-open", "size": 14, "color": "#555555"},
                       hovertext=[_e(r.label) for r in chart.ridges], hoverinfo="text")
        )  # fmt: skip
    groups: dict[tuple[int, str], list[int]] = {}
    for k, cp in enumerate(chart.points):
        groups.setdefault((cp.result_index, cp.point.source.value), []).append(k)
    shown: set[int] = set()
    for (index, source), members in groups.items():
        pts = [chart.points[k] for k in members]
        fig.add_trace(
            go.Scatter(
                x=[p.x for p in pts], y=[p.y for p in pts], mode="markers", name=_e(pts[0].result), meta="ops",
                legendgroup=str(index), showlegend=index not in shown,
                marker={"color": pts[0].colour, "symbol": SOURCE_MARKERS.get(source, ("o", "circle"))[1],
                        "size": [6 + 34 * p.share**0.5 for p in pts], "opacity": 0.8,
                        "line": {"color": "white", "width": 0.5}},
                hovertext=["<br>".join(_e(line) for line in p.hover_lines()) for p in pts], hoverinfo="text",
            )
        )  # fmt: skip
        shown.add(index)
    fig.update_layout(
        title={"text": _e(chart.title)},
        xaxis={"type": "log", "title": {"text": chart.x_title},
               **_si_ticks(*chart.x_range, "")},
        yaxis={"type": "log", "title": {"text": "performance"}, **_si_ticks(*chart.y_range, "FLOP/s")},
        height=620, template="plotly_white", hoverlabel={"align": "left"},
        legend={"font": {"size": 11}, "title": {"text": "results (size = share of time)"}, "x": 1.02, "y": 1},
    )  # fmt: skip
    fig.update_xaxes(range=[_log10(chart.x_range[0]), _log10(chart.x_range[1])])
    fig.update_yaxes(range=[_log10(chart.y_range[0]), _log10(chart.y_range[1])])
    return fig


def kernels_plotly(chart: Chart) -> go.Figure:
    """Files without FLOP counts: the kernels ranked by time (a bar each), every field in the hover."""
    import plotly.graph_objects as go

    top = chart.by_time()
    fig = go.Figure(
        go.Bar(
            x=[(p.point.time_s or 0.0) * 1e3 for p in top],
            y=[_e(f"{k + 1}. {p.point.label[:80]}") for k, p in enumerate(top)],  # ranked: equal names stay apart
            orientation="h", marker={"color": [p.colour for p in top]}, meta="kernels",
            hovertext=["<br>".join(_e(line) for line in p.hover_lines()) for p in top], hoverinfo="text",
        )
    )  # fmt: skip
    fig.update_layout(title={"text": _e(chart.title.replace("Roofline", "Kernels by time"))},
                      xaxis={"title": {"text": "time (ms)"}}, yaxis={"autorange": "reversed"},
                      height=max(360, 22 * len(top) + 120), template="plotly_white",
                      margin={"l": 420})  # fmt: skip
    return fig


def _log10(x: float) -> float:
    return math.log10(x)


def throughput_vs_tpot(result: Result) -> go.Figure:
    """Output tokens/s against TPOT, one line per context, with the TPOT SLO and the operating point."""
    import plotly.graph_objects as go

    rows = sweep_rows(result)
    fig = go.Figure()
    for c in sorted({r["context"] for r in rows}):
        fig.add_trace(_context_line([r for r in rows if r["context"] == c], c))
    _add_tpot_slo(fig, result, rows)
    _add_operating_point(fig, result, rows)
    fig.update_layout(
        title={"text": _e(f"Throughput vs TPOT — {result.workload.get('cohort', '')}")},
        xaxis={"type": "log", "title": {"text": "TPOT (ms)"}},
        yaxis={"title": {"text": "output tokens/s (prefill paid serially)"}},
        template="plotly_white",
        height=480,
    )
    return fig


def _context_line(cells: list[dict[str, Any]], context: float) -> go.Scatter:
    """One context's cells, batch by batch (a cell whose KV does not fit is an open cross)."""
    import plotly.graph_objects as go

    return go.Scatter(
        x=[r["tpot_s"] * 1e3 for r in cells],
        y=[r["tokens_per_s"] for r in cells],
        mode="lines+markers",
        name=f"context {int(context)}",
        meta="sweep",
        marker={"symbol": ["circle" if r["fits"] else "x-open" for r in cells], "size": 8},
        hovertext=[
            _e(
                f"batch {r['batch']} · context {r['context']} · TPOT {r['tpot_s'] * 1e3:.2f} ms · "
                f"{r['tokens_per_s']:,.0f} tokens/s · goodput {r['goodput_tokens_per_s']:,.0f} · "
                f"{'fits' if r['fits'] else 'KV does not fit'} · bound {r['bound']}"
            )
            for r in cells
        ],
        hoverinfo="text",
    )


def _add_tpot_slo(fig: go.Figure, result: Result, rows: list[dict[str, Any]]) -> None:
    """The TPOT objective as a vertical dashed line, when the sweep had one."""
    import plotly.graph_objects as go

    slo = result.extra.get("slo", {}).get("tpot_s")
    if not slo:
        return
    top = max((r["tokens_per_s"] for r in rows), default=1.0)
    fig.add_trace(
        go.Scatter(
            x=[slo * 1e3, slo * 1e3],
            y=[0, top * 1.05],
            mode="lines",
            name=f"TPOT SLO {slo * 1e3:g} ms",
            meta="slo",
            line={"color": "#d62728", "dash": "dash"},
        )
    )


def _add_operating_point(fig: go.Figure, result: Result, rows: list[dict[str, Any]]) -> None:
    """The goodput-optimal cell as a star, when the sweep found one."""
    import plotly.graph_objects as go

    op = result.extra.get("operating_point")
    if not op:
        return
    best = [r for r in rows if r["batch"] == op["batch"] and r["context"] == op["context"]]
    fig.add_trace(
        go.Scatter(
            x=[best[0]["tpot_s"] * 1e3],
            y=[best[0]["tokens_per_s"]],
            mode="markers",
            name=f"operating point (batch {op['batch']})",
            meta="operating-point",
            marker={"symbol": "star", "size": 18, "color": "#2ca02c"},
        )
    )


def bound_heatmap(result: Result) -> go.Figure:
    """Batch × context heatmap of what binds each cell (cells whose KV does not fit shown apart)."""
    import plotly.graph_objects as go

    rows = sweep_rows(result)
    batches = sorted({r["batch"] for r in rows})
    contexts = sorted({r["context"] for r in rows})
    index = {(r["batch"], r["context"]): r for r in rows}
    z: list[list[Any]] = []
    text: list[list[str]] = []
    for c in contexts:
        z_row, t_row = [], []
        for b in batches:
            cell = index.get((b, c))
            name = "does not fit" if cell and not cell["fits"] else (cell["bound"] if cell else "")
            z_row.append(BOUND_ORDER.index(name) + 0.5 if name in BOUND_ORDER else None)
            t_row.append(_e(f"batch {b} · context {c} · {name}"))
        z.append(z_row)
        text.append(t_row)
    n = len(BOUND_ORDER)
    scale = []
    for k, colour in enumerate(BOUND_COLOURS):
        scale += [[k / n, colour], [(k + 1) / n, colour]]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[str(b) for b in batches],
            y=[str(c) for c in contexts],
            text=text,
            hoverinfo="text",
            zmin=0,
            zmax=n,
            colorscale=scale,
            colorbar={
                "tickvals": [k + 0.5 for k in range(n)],
                "ticktext": list(BOUND_ORDER),
                "title": {"text": "bound"},
            },
            meta="bound-heatmap",
        )
    )
    fig.update_layout(
        title={"text": _e(f"What binds each cell — {result.workload.get('cohort', '')}")},
        xaxis={"title": {"text": "batch (sequences)"}, "type": "category"},
        yaxis={"title": {"text": "context (tokens)"}, "type": "category"},
        template="plotly_white",
        height=420,
    )
    return fig


def sweep_figures(results: Sequence[Result]) -> list[tuple[str, go.Figure]]:
    """(id suffix, figure) for every sweep result's two charts."""
    out = []
    for k, result in enumerate(results):
        if "sweep" in result.extra:
            out.append((f"tpot-{k}", throughput_vs_tpot(result)))
            out.append((f"heatmap-{k}", bound_heatmap(result)))
    return out
