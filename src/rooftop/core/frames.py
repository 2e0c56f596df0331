"""A run as rows, a DataFrame, a short repr and notebook HTML (the views behind Run's methods).

One row per point per result: the point's fields as in the JSON artifact (``name``, SI units:
``flops``, ``bytes``, ``time_s``...), then the result's workload fields (``model``, ``batch``,
``context``...; a workload field a point also has keeps the point's value), and ``result`` (the
index of the result in the run). pandas is imported only when a DataFrame is asked for.
"""

from __future__ import annotations

import html
import math
from typing import Any

from rooftop.core.points import RooflinePoint, Traffic

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
    """'decode b=64 c=2048' / 'prefill b=1 p=2048' / 'trace.json.gz' — short, no None."""
    w = result.workload
    if w.get("phase") in ("prefill", "decode"):
        shape = f"p={w.get('prompt')}" if w["phase"] == "prefill" else f"c={w.get('context')}"
        return f"{w['phase']} b={w.get('batch')} {shape}"
    return str(w.get("file") or w.get("cohort") or w.get("source") or "result")


def run_repr(run: Run) -> str:
    """A one-line repr: command, device, model and the results by label (never the points)."""
    labels = [result_label(r) for r in run.results]
    shown = ", ".join(labels[:4]) + (f", … {len(labels) - 4} more" if len(labels) > 4 else "")
    model = run.results[0].workload.get("model") if run.results else None
    return (
        f"<Run {run.command!r} on {run.roofs.name}" + (f", {model}" if model else "") + f": "
        f"{len(run.results)} result(s) [{shown}], {sum(len(r.points) for r in run.results)} points>"
    )


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if not math.isfinite(value):
            return "—"
        return f"{value:.4g}"
    return html.escape(str(value))


def run_html(run: Run, top: int = 12) -> str:
    """Notebook HTML: per result, the totals and the ``top`` points by time (DataFrame for the rest)."""
    parts = [f"<div><b>{html.escape(run_repr(run))}</b>"]
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
        rows = "".join("<tr>" + "".join(f"<td>{_fmt(getattr(p, k))}</td>" for k in head) + "</tr>" for p in points)
        parts.append(
            "<table><thead><tr>" + "".join(f"<th>{k}</th>" for k in head) + f"</tr></thead><tbody>{rows}</tbody>"
            "</table>"
        )
        for f in result.findings:
            parts.append(f"<p>[{html.escape(str(f.severity))}] {html.escape(f.title)}</p>")
    parts.append("</div>")
    return "".join(parts)
