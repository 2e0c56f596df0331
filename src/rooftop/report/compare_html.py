"""`rooftop compare --report`: the comparison as one offline HTML page (a diff of two runs).

The page names both runs (file, command, model, device, date), shows the fields that differ,
the totals before and after with their ratio, the per-operator diff (bound changes highlighted,
sortable), and both runs on one roofline (one colour per result).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from rooftop.api.compare import Comparison
from rooftop.core.artifact import Run
from rooftop.errors import ReportError
from rooftop.report.chart import build_chart
from rooftop.report.html import _chart_section, _e, _Scripts, _table, _td, page, plotly_script
from rooftop.report.html_sections import differing_fields, identity_section
from rooftop.units import seconds, si

UNITS = {"time_s": "s", "bytes": "B", "flops": "FLOP", "intensity": "FLOP/B", "tokens_per_s": "tok/s"}
LABELS = {"time_s": "step time", "tokens_per_s": "tokens/s", "flops": "FLOPs", "mfu": "MFU", "hfu": "HFU",
          "mbu": "MBU"}  # fmt: skip


def _fmt(value: float | None, unit: str) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    if unit == "s":
        return seconds(value)
    if unit in ("B", "FLOP"):
        return si(value, unit)
    if unit in ("FLOP/B", "tok/s"):
        return f"{value:,.3g} {unit}" if unit == "FLOP/B" else f"{value:,.1f} {unit}"
    return f"{value:.1%}"  # mfu, hfu, mbu


def _ratio(before: float | None, after: float | None) -> tuple[str, float]:
    if before is None or after is None or not before:
        return "—", float("nan")
    return f"×{after / before:.3g}", after / before


def diff_section(cmp: Comparison) -> list[str]:
    """Per paired workload: the totals table and the sortable per-operator diff."""
    body = []
    for r in cmp.results:
        body.append(f"<h2>{_e(' · '.join(f'{k} {v}' for k, v in r.key.items()))}</h2>")
        rows = []
        for name, (b, a) in r.totals.items():
            unit = UNITS.get(name, "%")
            shown, value = _ratio(b, a)
            rows.append("<tr>" + _td(LABELS.get(name, name), left=True) + _td(_fmt(b, unit), b) + _td(_fmt(a, unit), a)
                        + _td(shown, value) + "</tr>")  # fmt: skip
        body.append(_table(["total", "before", "after", "change"], rows))
        ops = []
        for o in r.ops:
            shown, value = _ratio(o.before_time_s, o.after_time_s)
            bound = f"{o.before_bound} → {o.after_bound}" if o.bound_changed else (o.after_bound or o.before_bound)
            cls = "changed" if o.bound_changed else ""
            ops.append(
                f"<tr class='{cls}'>" + _td(o.name, left=True) + _td(_fmt(o.before_time_s, "s"), o.before_time_s)
                + _td(_fmt(o.after_time_s, "s"), o.after_time_s) + _td(shown, value)
                + _td(_fmt(o.before_bytes, "B"), o.before_bytes) + _td(_fmt(o.after_bytes, "B"), o.after_bytes)
                + _td(bound, left=True) + "</tr>"
            )  # fmt: skip
        body.append(_table(["op", "time before", "after", "change", "bytes before", "after", "bound"], ops, right_to=6))
    if cmp.unpaired:
        body.append("<p class='muted'>not paired: " + _e(", ".join(cmp.unpaired)) + "</p>")
    return body


def render_compare_html(cmp: Comparison, before: Run, after: Run, names: Sequence[str]) -> str:
    """The comparison page: both runs named, what differs, totals and per-op diffs, one roofline."""
    scripts = _Scripts()
    plotly_tag = plotly_script(scripts)
    title = f"Compare {names[0]} → {names[1]}"
    body = [f"<h1>{_e(title)}</h1>", "<h2>Runs</h2>"]
    body += [identity_section(run, k, names[k]) for k, run in enumerate((before, after))]
    body.append(differing_fields((before, after), names))
    body += [f"<p class='note'>forced: {_e(w)}</p>" for w in cmp.warnings]
    body += diff_section(cmp)
    body += _chart_section(scripts, build_chart((before, after)))
    return page(title, body, scripts, plotly_tag).replace("</style>", "tr.changed td{background:#fff3cd}</style>", 1)


def write_compare_report(cmp: Comparison, before: Run, after: Run, names: Sequence[str], path: str | Path) -> Path:
    """Write the comparison page to ``path``."""
    target = Path(path)
    try:
        target.write_text(render_compare_html(cmp, before, after, names), encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"{target}: cannot write: {exc.strerror}") from exc
    return target
