"""A run as rows, a DataFrame, a short repr and notebook HTML (the views behind Run's methods).

One row per point per result: the point's fields as in the JSON artifact (``name``, SI units:
``flops``, ``bytes``, ``time_s``...), then the result's workload fields (``model``, ``batch``,
``context``...; a workload field a point also has keeps the point's value), and ``result`` (the
index of the result in the run). pandas is imported only when a DataFrame is asked for.
"""

from __future__ import annotations

import html
import math
import os
from typing import Any

from rooftop.core.points import RooflinePoint, Traffic
from rooftop.units import seconds, si

# Run and Result are typed Any here: artifact.py imports this module (no cycle back to it).
Run = Any
Result = Any

POINT_COLUMNS = (
    "name", "op", "phase", "source", "count", "flops", "bytes", "level", "weight_bytes", "act_in_bytes",
    "act_out_bytes", "kv_read_bytes", "kv_write_bytes", "link_bytes", "intensity", "time_s", "flop_per_s",
    "bytes_per_s", "dtype", "bound",
)  # fmt: skip


def run_rows(run: Run) -> list[dict[str, Any]]:
    """Every point of every result as a flat dict (see the module docstring)."""
    rows = []
    for index, result in enumerate(run.results):
        for p in result.points:
            point = point_row(p)
            workload = {k: v for k, v in result.workload.items() if k not in point and _scalar(v)}
            rows.append({**point, **workload, "result": index})
    return rows


def point_row(p: RooflinePoint) -> dict[str, Any]:
    """A point's fields under their JSON names (``name``, SI units), achieved rates included."""
    t = p.traffic or Traffic()
    return {
        "name": p.label, "op": p.op, "phase": p.phase.value, "source": p.source.value, "count": p.count,
        "flops": p.flops, "bytes": p.bytes, "level": p.level, "weight_bytes": t.weight_bytes,
        "act_in_bytes": t.act_in_bytes, "act_out_bytes": t.act_out_bytes, "kv_read_bytes": t.kv_read_bytes,
        "kv_write_bytes": t.kv_write_bytes, "link_bytes": p.link_bytes, "intensity": p.intensity,
        "time_s": p.time_s, "flop_per_s": p.flop_per_s, "bytes_per_s": p.bytes_per_s, "dtype": p.dtype,
        "bound": p.bound,
    }  # fmt: skip


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def to_dataframe(run: Run) -> Any:
    """A pandas DataFrame of ``run_rows`` (pandas comes with the `notebook` extra)."""
    try:
        import pandas as pd  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - depends on the environment
        from rooftop.errors import RooftopError

        raise RooftopError("Run.to_dataframe needs pandas: pip install 'rooftop[notebook]'") from None
    columns = list(POINT_COLUMNS)
    rows = run_rows(run)
    for row in rows:
        columns += [k for k in row if k not in columns]
    return pd.DataFrame(rows, columns=columns)


def result_label(result: Result) -> str:
    """Short label of a result, never None: 'decode b=64 c=2048', 'sweep chat', or the file's.

    A file's name comes with its rank and, of a file of several GPUs, its device:
    'trace.json.gz rank 0 device 1'.
    """
    w = result.workload
    if w.get("cohort"):
        return f"sweep {w.get('cohort')}"
    if w.get("phase") in ("prefill", "decode") and w.get("batch") is not None:
        shape = f"p={w.get('prompt')}" if w.get("phase") == "prefill" else f"c={w.get('context')}"
        return f"{w['phase']} b={w['batch']} {shape}"
    name = os.path.basename(str(w["file"])) if w.get("file") else str(w.get("source") or w.get("phase") or "result")
    name += f" rank {w['rank']}" if w.get("rank") is not None else ""
    return name + (f" device {w['device_index']}" if w.get("device_index") is not None else "")


def run_repr(run: Run) -> str:
    """A one-line repr: command, device, model and the results by label (never the points)."""
    labels = [result_label(r) for r in run.results]
    shown = ", ".join(labels[:4]) + (f", … {len(labels) - 4} more" if len(labels) > 4 else "")
    model = run.results[0].workload.get("model") if run.results else None
    return (
        f"<Run {run.command!r} on {run.roofs.name}" + (f", {model}" if model else "") + f": "
        f"{len(run.results)} result(s) [{shown}], {sum(len(r.points) for r in run.results)} points>"
    )


def _fmt(key: str, value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "∞" if value > 0 else "—"
    if key == "flops":
        return si(value, "FLOP")
    if key == "bytes":
        return si(value, "B")
    if key == "time_s":
        return seconds(value) if value else "—"
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"
    return html.escape(str(value))


def run_html(run: Run, top: int = 12) -> str:
    """Notebook HTML: a small roofline (inline SVG), then per result the totals and the ``top`` points by time."""
    parts = [f"<div><b>{html.escape(run_repr(run))}</b>", run_svg(run)]
    for result in run.results:
        parts.append(f"<h4>{html.escape(result_label(result))}</h4>")
        if result.totals is not None:
            t = result.totals
            parts.append(
                f"<p>time {t.time_s * 1e3:.4g} ms · tokens/s {t.tokens_per_s:,.1f} · MFU {t.mfu:.1%} · "
                f"MBU {t.mbu:.1%} · bound {html.escape(t.bound)}</p>"
            )
        points = sorted(result.points, key=lambda p: -(p.time_s or 0.0))[:top]
        head = ("name", "count", "flops", "bytes", "intensity", "time_s", "bound")
        rows = "".join("<tr>" + "".join(f"<td>{_fmt(k, getattr(p, k))}</td>" for k in head) + "</tr>" for p in points)
        parts.append(
            "<table><thead><tr>" + "".join(f"<th>{k}</th>" for k in head) + f"</tr></thead><tbody>{rows}</tbody>"
            "</table>"
        )
        for f in result.findings:
            parts.append(f"<p>[{html.escape(str(f.severity))}] {html.escape(f.title)}</p>")
    parts.append("</div>")
    return "".join(parts)


SVG_W, SVG_H, PAD = 560, 320, 44
SVG_COLOURS = ("#1b78b4", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e")


def run_svg(run: Run) -> str:
    """A small log-log roofline as inline SVG, drawn without a plotting library.

    The HBM and top compute roof, one colour per result, points with FLOPs and bytes only; the full
    charts are `--report` and `rooftop.report.plot`.
    """
    pts = [(k, p) for k, r in enumerate(run.results) for p in r.points if p.flops > 0 and p.bytes > 0 and p.time_s]
    roofs = run.roofs
    if not pts or not roofs.compute or not roofs.has_memory("hbm"):
        return ""
    dtype = str(run.results[0].workload.get("compute_dtype") or "")
    peak = roofs.peak(dtype) if roofs.has_compute(dtype) else max(c.flop_per_s for c in roofs.compute)
    bw = roofs.bandwidth("hbm")
    xs = [p.intensity for _, p in pts] + [peak / bw]
    ys = [p.flop_per_s for _, p in pts] + [peak]
    x0, x1 = math.log10(min(xs) / 3), math.log10(max(xs) * 3)
    y0, y1 = math.log10(min(ys) / 3), math.log10(peak * 2)

    def at(x: float, y: float) -> tuple[float, float]:
        fx = (math.log10(x) - x0) / (x1 - x0)
        fy = (math.log10(y) - y0) / (y1 - y0)
        return PAD + fx * (SVG_W - PAD - 8), SVG_H - PAD - fy * (SVG_H - PAD - 8)

    lo, ridge, hi = 10**x0, peak / bw, 10**x1
    roof = " ".join(f"{a:.1f},{b:.1f}" for a, b in (at(lo, bw * lo), at(ridge, peak), at(hi, peak)))
    dots = "".join(
        f'<circle cx="{at(p.intensity, p.flop_per_s)[0]:.1f}" cy="{at(p.intensity, p.flop_per_s)[1]:.1f}" r="3.5" '
        f'fill="{SVG_COLOURS[k % len(SVG_COLOURS)]}"><title>{html.escape(p.label)}</title></circle>'
        for k, p in pts
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{SVG_W}" height="{SVG_H}" role="img">'
        f'<rect x="{PAD}" y="8" width="{SVG_W - PAD - 8}" height="{SVG_H - PAD - 8}" fill="none" stroke="#ccc"/>'
        f'<polyline points="{roof}" fill="none" stroke="#444" stroke-width="1.5"/>{dots}'
        f'<text x="{SVG_W / 2}" y="{SVG_H - 12}" font-size="11" text-anchor="middle">intensity (FLOP/B, log)</text>'
        f'<text x="12" y="{SVG_H / 2}" font-size="11" transform="rotate(-90 12 {SVG_H / 2})" text-anchor="middle">'
        f"FLOP/s (log): roof {html.escape(_si(peak))}FLOP/s, ridge {ridge:.0f}</text></svg>"
    )


def _si(value: float) -> str:
    for prefix, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6)):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}"
    return f"{value:.3g} "
