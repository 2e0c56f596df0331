"""One self-contained HTML report that works offline: identity, roofs, charts, op tables, totals, findings.

The plotly.js bundle that the ``plotly`` package ships is inlined (no CDN, no network). Every
string that came from input goes through :func:`html.escape` (text and attributes); figure JSON
is embedded with ``<``, ``>`` and ``&`` as JSON unicode escapes so no string can close the
script element. A Content-Security-Policy allows only this file's own scripts (by hash), so an
injected handler would not run even if a string escaped the escaping.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rooftop.core.artifact import Result, Run
from rooftop.core.atomic import write_atomic
from rooftop.core.findings import Finding
from rooftop.core.frames import result_label
from rooftop.core.roofs import Roofs
from rooftop.errors import ReportError
from rooftop.report.chart import build_chart
from rooftop.report.html_sections import differing_fields, identity_section, import_sections
from rooftop.report.layout import num
from rooftop.report.sweep_table import sweep_rows
from rooftop.report.tables import predicted_line
from rooftop.units import gib, seconds, si

MAX_SWEEP_ROWS = 2000  # cells listed in the HTML table (the JSON/CSV hold them all)

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1280px;padding:0 18px 40px;color:#222}
h1{font-size:22px;margin:18px 0 4px} h2{font-size:18px;margin:26px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:18px 0 6px} table{border-collapse:collapse;margin:6px 0 12px;font-size:12.5px}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th{background:#f5f5f5;position:sticky;top:0} td.l,th.l{text-align:left}
table.sortable th{cursor:pointer} table.sortable th:after{content:" \\2195";color:#aaa}
.kv td:first-child{font-weight:600;text-align:left} .sev-critical{color:#b00020;font-weight:700}
.sev-warn{color:#a36b00;font-weight:700} .sev-info{color:#2a7a2a;font-weight:700}
.finding{margin:8px 0 14px;padding:8px 12px;border-left:4px solid #ccc;background:#fafafa}
td.src{white-space:normal;max-width:640px;font-size:11.5px;color:#555}
.muted{color:#666} .predicted{color:#2a7a2a} details>summary{cursor:pointer;font-weight:600;margin:10px 0}
.note{padding:8px 12px;background:#fff8e1;border-left:4px solid #f0b400}
.bound-compute{color:#c62828} .bound-memory{color:#1565c0} .bound-link{color:#6a1b9a}
"""

SORT_JS = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var asc = th.getAttribute('data-dir') !== 'asc';
      th.setAttribute('data-dir', asc ? 'asc' : 'desc');
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
        var nx = parseFloat(x), ny = parseFloat(y), r;
        if (!isNaN(nx) && !isNaN(ny)) { r = nx - ny; } else { r = String(x).localeCompare(String(y)); }
        return asc ? r : -r;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _td(text: object, sort_value: object = None, left: bool = False, cls: str = "") -> str:
    v = text if sort_value is None else sort_value
    if isinstance(v, float) and not math.isfinite(v):
        v = ""
    classes = " ".join(c for c in ("l" if left else "", cls) if c)
    return f'<td data-v="{_e(v)}"{f" class={chr(34)}{classes}{chr(34)}" if classes else ""}>{_e(text)}</td>'


def _table(
    headers: Sequence[str],
    rows: Sequence[str],
    sortable: bool = True,
    left: int = 1,
    right_from: int = 0,
    right_to: int | None = None,
) -> str:
    """A table whose first ``left`` headers (and any past ``right_to``) are left-aligned."""
    head = "".join(
        f"<th>{_e(h)}</th>"
        if left <= k and right_from <= k and (right_to is None or k < right_to)
        else f'<th class="l">{_e(h)}</th>'
        for k, h in enumerate(headers)
    )
    cls = ' class="sortable"' if sortable else ""
    return f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _kv(pairs: Sequence[tuple[str, object]]) -> str:
    rows = "".join(f'<tr><td>{_e(k)}</td><td class="l">{_e(v)}</td></tr>' for k, v in pairs)
    return f'<table class="kv"><tbody>{rows}</tbody></table>'


def roofs_section(all_roofs: Sequence[Roofs]) -> str:
    """Every roof with its value, kind and source."""
    rows = []
    for roofs in all_roofs:
        entries = [
            (f"compute {c.dtype}", si(c.flop_per_s, "FLOP/s"), c.flop_per_s, c.kind, c.source) for c in roofs.compute
        ]
        entries += [
            (f"bandwidth {m.level}", si(m.bytes_per_s, "B/s"), m.bytes_per_s, m.kind, m.source) for m in roofs.memory
        ]
        for label, shown, value, kind, source in entries:
            rows.append(
                "<tr>"
                + _td(roofs.name, left=True)
                + _td(label, left=True)
                + _td(shown, value)
                + _td(kind.value, left=True)
                + _td(source, left=True, cls="src")
                + "</tr>"
            )
    return _table(["device", "roof", "value", "kind", "source"], rows, left=2, right_from=2, right_to=3)


def ops_table(result: Result) -> str:
    """Sortable per-op table: FLOPs, bytes split, intensity, time, share, FLOP/s, bound."""
    total = sum(p.time_s or 0.0 for p in result.points) or float("nan")
    rows = []
    for p in result.points:
        t = p.traffic
        share = (p.time_s or 0.0) / total
        bound_cls = f"bound-{p.bound.split(':')[0]}" if p.bound else ""
        rows.append(
            "<tr>"
            + _td(p.label, left=True)
            + _td(p.op, left=True)
            + _td(p.source.value, left=True)
            + _td(p.count, p.count)
            + _td(si(p.flops, "FLOP"), p.flops)
            + _td(si(p.bytes, "B"), p.bytes)
            + _td(si(t.weight_bytes, "B") if t else "", t.weight_bytes if t else 0)
            + _td(si(t.kv_bytes, "B") if t else "", t.kv_bytes if t else 0)
            + _td(f"{p.intensity:.3g}" if math.isfinite(p.intensity) else num(p.intensity), p.intensity)
            + _td(seconds(p.time_s) if p.time_s else "—", p.time_s or 0)
            + _td(f"{share:.1%}", share)
            + _td(si(p.flop_per_s, "FLOP/s"), p.flop_per_s)
            + _td(p.bound, left=True, cls=bound_cls)
            + "</tr>"
        )
    headers = ["op", "kind", "source", "×", "FLOPs", "bytes", "weights", "KV", "FLOP/B", "time", "share", "FLOP/s"]
    return _table([*headers, "bound"], rows, left=3)


def totals_section(result: Result) -> str:
    """Step totals and the memory budget."""
    t = result.totals
    pairs: list[tuple[str, object]] = []
    if t is not None:
        label = {"prefill": "TTFT (at the roofs)", "decode": "TPOT (at the roofs)"}.get(t.phase, "step time")
        pairs += [
            (label, seconds(t.time_s)),
            ("tokens/s", f"{t.tokens_per_s:,.1f}"),
            ("FLOPs / bytes", f"{si(t.flops, 'FLOP')} / {si(t.bytes, 'B')}"),
            ("intensity", f"{t.intensity:.3g} FLOP/B (ridge {t.peak_flop_per_s / t.bandwidth_bytes_per_s:.0f})"),
            ("MFU / HFU / MBU", f"{t.mfu:.1%} / {t.hfu:.1%} / {t.mbu:.1%}"),
            ("bound", t.bound),
        ]
    m = result.memory
    if m:
        pairs.append(
            (
                "memory per GPU",
                f"weights {gib(m['weights_bytes'])}, KV {gib(m['kv_cache_bytes'])}, "
                f"free {gib(m['free_bytes'])} of {gib(m['usable_bytes'])} usable; max batch {m.get('max_batch')}",
            )
        )
    return _kv(pairs) if pairs else ""


def findings_section(findings: Sequence[Finding]) -> str:
    """Each finding with its evidence, what to check first, remedies and side effects."""
    parts = []
    for f in findings:
        evidence = "".join(
            f"<li><code>{_e(k)}</code>: {_e(json.dumps(v, ensure_ascii=False))}</li>" for k, v in f.evidence.items()
        )
        remedies = "".join(
            f"<li>{_e(r.action)} <span class='muted'>— side effects: {_e(r.side_effects)}</span>"
            + (f"<div class='predicted'>predicted: {_e(predicted_line(r.predicted))}</div>" if r.predicted else "")
            + "</li>"
            for r in f.remedies
        )
        parts.append(
            f'<div class="finding"><span class="sev-{_e(f.severity)}">[{_e(f.severity)}]</span> '
            f"<b>{_e(f.title)}</b> <span class='muted'>({_e(f.code)}; {_e(f.bottleneck)})</span>"
            + (f"<div class='muted'>check first: {_e(f.check_first)}</div>" if f.check_first else "")
            + (f"<details><summary>evidence</summary><ul>{evidence}</ul></details>" if evidence else "")
            + (f"<div>remedies:</div><ul>{remedies}</ul>" if remedies else "")
            + "</div>"
        )
    return "".join(parts)


def sweep_table(result: Result) -> str:
    """The sweep's cells (the first MAX_SWEEP_ROWS)."""
    rows = []
    for r in sweep_rows(result)[:MAX_SWEEP_ROWS]:
        rows.append(
            "<tr>"
            + _td(r["batch"])
            + _td(r["context"])
            + _td(seconds(r["tpot_s"]), r["tpot_s"])
            + _td(seconds(r["ttft_s"]), r["ttft_s"])
            + _td(f"{r['tokens_per_s']:,.0f}", r["tokens_per_s"])
            + _td(f"{r['goodput_tokens_per_s']:,.0f}", r["goodput_tokens_per_s"])
            + _td(si(r["flop_per_s"], "FLOP/s"), r["flop_per_s"])
            + _td(si(r["bytes_per_s"], "B/s"), r["bytes_per_s"])
            + _td(f"{r['intensity']:.3g}", r["intensity"])
            + _td("yes" if r["fits"] else "no")
            + _td("met" if r["slo_met"] else "no")
            + _td(r["bound"], left=True)
            + "</tr>"
        )
    headers = ["batch", "context", "TPOT", "TTFT", "tokens/s", "goodput", "FLOP/s", "B/s", "FLOP/B", "fits", "SLO"]
    return _table([*headers, "bound"], rows, left=0)


class _Scripts:
    """Collects the page's inline scripts so the CSP can list their hashes."""

    def __init__(self) -> None:
        self.bodies: list[str] = []

    def add(self, body: str) -> str:
        self.bodies.append(body)
        return f"<script>{body}</script>"

    def csp(self) -> str:
        hashes = " ".join(
            "'sha256-" + base64.b64encode(hashlib.sha256(b.encode("utf-8")).digest()).decode() + "'"
            for b in self.bodies
        )
        return f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data:; font-src data:"


def _safe_json(obj: Any) -> str:
    return json.dumps(obj).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _figure(scripts: _Scripts, div_id: str, fig: Any) -> str:
    spec = json.loads(fig.to_json())
    config = {"displaylogo": False, "responsive": True}
    body = (
        f"Plotly.newPlot({json.dumps(div_id)}, {_safe_json(spec.get('data', []))}, "
        f"{_safe_json(spec.get('layout', {}))}, {_safe_json(config)});"
    )
    return f'<div id="{_e(div_id)}" class="chart"></div>' + scripts.add(body)


def _chart_section(scripts: _Scripts, chart: Any) -> list[str]:
    """The roofline (or, for files without FLOPs, the kernels by time and why), and the points not drawn."""
    from rooftop.report.interactive import kernels_plotly, roofline_plotly

    if chart.no_roofline:
        return ["<h2>Kernels by time</h2>", f"<p class='note'>{_e(chart.no_roofline)}</p>",
                _figure(scripts, "kernels", kernels_plotly(chart))]  # fmt: skip
    body = [
        "<h2>Roofline</h2>",
        f"<p class='muted'>{len(chart.points)} points; colour = result (one legend entry each), marker = source, "
        "size = share of its result's time; each roof is labelled on its line (solid datasheet, dashed "
        "theoretical, dotted measured). Hover a point for every field.</p>",
        _figure(scripts, "roofline", roofline_plotly(chart)),
    ]
    body += [f"<p class='note'>{_e(n)}</p>" for n in chart.notes]
    if chart.unplaced:
        names = sorted({p.point.label for p in chart.unplaced})
        shown = ", ".join(names[:200]) + (f" … and {len(names) - 200} more" if len(names) > 200 else "")
        body.append(f"<details class='unplaced'><summary>{len(chart.unplaced)} points not on the chart (no FLOPs "
                    f"or no bytes, so no intensity on a log-log axis)</summary><p class='muted'>{_e(shown)}</p>"
                    "</details>")  # fmt: skip
    return body


def _result_sections(run: Run, name: str) -> list[str]:
    body = []
    for result in run.results:
        body.append(f"<h2>{_e(result_label(result))} <span class='muted'>({_e(name)} · {_e(run.command)})</span></h2>")
        body.append(
            _kv([(k, v) for k, v in result.workload.items() if not isinstance(v, list) and v not in ("", None)])
        )
        body.append(totals_section(result))
        if result.findings:
            body += ["<h3>Findings</h3>", findings_section(result.findings)]
        body.append(import_sections(result))
        if "sweep" in result.extra:
            body += ["<details><summary>every cell</summary>", sweep_table(result), "</details>"]
        if result.points:
            body += [
                f"<details {'open' if len(result.points) <= 60 else ''}><summary>operators</summary>",
                ops_table(result),
                "</details>",
            ]
    return body


def page(title: str, body: Sequence[str], scripts: _Scripts, plotly_tag: str) -> str:
    """The HTML document around ``body`` (sortable tables, CSP by script hash)."""
    tail = scripts.add(SORT_JS)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{scripts.csp()}\">"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{_e(title)}</title>"
        f"<style>{STYLE}</style>{plotly_tag}</head><body>{''.join(body)}{tail}</body></html>"
    )


def plotly_script(scripts: _Scripts) -> str:
    """plotly.js inlined (no CDN), or a clear error without plotly."""
    try:
        from plotly.offline import get_plotlyjs
    except ImportError:
        raise ReportError("HTML reports need plotly: pip install 'rooftop[report]'") from None
    return scripts.add(get_plotlyjs().replace("</script", "<\\/script"))


def render_html(runs: Sequence[Run], title: str = "", names: Sequence[str] = ()) -> str:
    """The whole report as one HTML string; ``names`` label the runs (file names; default: their commands)."""
    from rooftop.report.interactive import sweep_figures

    if not runs:
        raise ReportError("a report needs at least one run")
    names = [*names, *(f"{run.command} run" for run in runs[len(names) :])]
    scripts = _Scripts()
    plotly_tag = plotly_script(scripts)
    chart = build_chart(runs, title)
    page_title = title or (chart.title.replace("Roofline", "Kernels by time") if chart.no_roofline else chart.title)
    body = [f"<h1>{_e(page_title)}</h1>", "<h2>Runs</h2>"]
    body += [identity_section(run, k, names[k]) for k, run in enumerate(runs)]
    body.append(differing_fields(runs, names))
    all_roofs: list[Roofs] = []
    for run in runs:
        all_roofs += [r for r in (run.roofs, *run.extra_roofs) if r not in all_roofs]
    roofs = (
        roofs_section(all_roofs)
        if any(r.compute or r.memory for r in all_roofs)
        else ("<p class='muted'>No roofs: the file names no device; pass --hardware (-H) to draw it against one.</p>")
    )
    body += ["<h2>Roofs</h2>", roofs, *_chart_section(scripts, chart)]
    for k, run in enumerate(runs):
        sweeps = sweep_figures(run.results)
        if sweeps:
            body.append("<h2>Sweep</h2>")
            body += [_figure(scripts, f"sweep-{k}-{suffix}", fig) for suffix, fig in sweeps]
        body += _result_sections(run, names[k])
    return page(page_title, body, scripts, plotly_tag)


def write_report(runs: Sequence[Run], path: str | Path, title: str = "", names: Sequence[str] = ()) -> Path:
    """Write the report of ``runs`` to ``path`` (``names``: how to call each run, e.g. its file)."""
    return write_atomic(path, render_html(runs, title, names), ReportError)
