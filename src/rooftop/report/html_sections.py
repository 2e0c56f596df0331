"""Report sections that name runs and carry imported traces' tables (html.py assembles the page).

Each run is named by its file (or the command that made it), with its command line, model,
device and date; the workload fields that differ between results get a table of their own so
two runs of one model are told apart at a glance. Imported traces carry the same timeline,
per-step, collective and kernel-class tables the terminal prints.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

from rooftop.core.artifact import Result, Run
from rooftop.core.frames import result_label
from rooftop.ingest.timeline import GAP_CAUSES
from rooftop.units import seconds, si


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _kv(pairs: Sequence[tuple[str, object]]) -> str:
    rows = "".join(f'<tr><td>{_e(k)}</td><td class="l">{_e(v)}</td></tr>' for k, v in pairs)
    return f'<table class="kv"><tbody>{rows}</tbody></table>'


def _grid(headers: Sequence[str], rows: Sequence[Sequence[object]], left: int = 1) -> str:
    head = "".join(f"<th{' class=l' if k < left else ''}>{_e(h)}</th>" for k, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f"<td{' class=l' if k < left else ''}>{_e(v)}</td>" for k, v in enumerate(r)) + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def model_name(run: Run) -> str:
    """The model a run analysed ('' for imports without one)."""
    model = run.identity.get("model", {})
    name = model.get("name", "") if isinstance(model, dict) else model
    if not name and run.results:
        name = run.results[0].workload.get("model") or ""
    return str(name or "")


def run_heading(run: Run, index: int, name: str) -> str:
    """'Run 1: before.json — analyze · llama-3.1-8b on h100-sxm · 2026-11-30 18:30'; never 'None'."""
    created = str(run.identity.get("created", ""))[:16].replace("T", " ")
    parts = [run.command, f"{model_name(run)} on {run.roofs.name}" if model_name(run) else run.roofs.name, created]
    return f"Run {index + 1}: {name} — " + " · ".join(p for p in parts if p)


def identity_section(run: Run, index: int, name: str) -> str:
    """Who and what produced a run: file, command line, model, device, versions, when."""
    ident = run.identity
    full = run.roofs.identity.get("name", run.roofs.vendor)
    pairs: list[tuple[str, object]] = [
        ("file", name),
        ("command", ident.get("command_line") or f"rooftop {run.command}"),
        ("model", model_name(run)),
        (
            "hardware",
            run.roofs.name + (f" ({full})" if (full := run.roofs.identity.get("name", run.roofs.vendor)) else ""),
        ),
        ("results", ", ".join(result_label(r) for r in run.results)),
        ("source", ident.get("source", "")),
        ("rooftop", ident.get("rooftop", "")),
        ("created", ident.get("created", "")),
        ("platform", ident.get("platform", "")),
    ]
    return f"<h3>{_e(run_heading(run, index, name))}</h3>{_kv([(k, v) for k, v in pairs if v not in ('', None)])}"


def differing_fields(runs: Sequence[Run], names: Sequence[str]) -> str:
    """One row per result, one column per workload field whose value differs between results ('' if none)."""
    rows = [(names[k], r) for k, run in enumerate(runs) for r in run.results]
    if len(rows) < 2:
        return ""
    keys: list[str] = []
    for _, r in rows:
        keys += [k for k, v in r.workload.items() if k not in keys and not isinstance(v, list | dict)]
    differ = [k for k in keys if len({str(r.workload.get(k)) for _, r in rows}) > 1]
    if not differ:
        return ""
    table = [[name, result_label(r), *(_value(r.workload.get(k)) for k in differ)] for name, r in rows]
    return "<h3>What differs between the results</h3>" + _grid(["run", "result", *differ], table, left=2)


def _value(v: Any) -> str:
    return "—" if v is None else str(v)


def import_sections(result: Result) -> str:
    """The timeline, per-step, collective and kernel-class tables of an imported trace (nsys: the breakdown)."""
    parts = []
    tl = result.extra.get("timeline")
    if tl:
        gap = tl.get("largest_gap_s")
        pairs: list[tuple[str, object]] = [
            ("kernels", f"{tl.get('kernels', 0):,} on {len(tl.get('streams', {}))} stream(s)"),
            ("span / busy / idle", f"{seconds(tl['span_s'])} / {seconds(tl['busy_s'])} / {seconds(tl['idle_s'])} "
                                   f"({tl.get('idle_share', 0):.1%} idle)"),
            ("largest gap", seconds(gap) if isinstance(gap, float) and math.isfinite(gap) else "none"),
            ("gaps: host / sync / copy / other", " / ".join(seconds(tl.get(k, 0.0)) for k in GAP_CAUSES)),
            ("communication", f"{tl.get('nccl_kernels', 0)} kernels, {seconds(tl.get('nccl_s', 0.0))}, "
                              f"{seconds(tl.get('comm_compute_overlap_s', 0.0))} under compute"),
        ]  # fmt: skip
        parts += ["<h3>Timeline</h3>", _kv(pairs)]
        classes = tl.get("classes") or {}
        if classes:
            total = sum(classes.values()) or 1.0
            rows = [[k, seconds(v), f"{v / total:.1%}"] for k, v in classes.items()]
            parts += ["<h3>Kernel time by class</h3>", _grid(["class", "time", "share"], rows)]
        coll = tl.get("collectives") or []
        if coll:
            rows = [[c["collective"], c["kernels"], seconds(c["time_s"]), si(c.get("message_bytes", 0.0), "B")]
                    for c in coll]  # fmt: skip
            parts += ["<h3>Collectives</h3>", _grid(["collective", "kernels", "time", "message bytes"], rows)]
    steps = (result.extra.get("steps") or {}).get("steps") or []
    if steps:
        rows = [[s["step"] + (" (last)" if s.get("last") else ""), s.get("activities", ""),
                 *(seconds(s[k]) if k in s else "" for k in ("span_s", "idle_s", "compute_s", "non_compute_s"))]
                for s in steps]  # fmt: skip
        parts += ["<h3>Per step</h3>", _grid(["step", "GPU activities", "span", "idle", "compute", "non-compute"],
                                             rows)]  # fmt: skip
    bd = result.extra.get("breakdown")
    if bd:
        rows = [[k, seconds(e["time_s"]), f"{e['share']:.1%}", f"{e['instances']:,}"] for k, e in bd["classes"].items()]
        parts += [f"<h3>Kernel classes ({bd['kernel_names']} names, {bd['instances']:,} instances)</h3>",
                  _grid(["class", "time", "share", "instances"], rows)]  # fmt: skip
    return "".join(parts)
