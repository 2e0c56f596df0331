"""Nsight Systems kernel summaries (``nsys stats --report cuda_gpu_kern_sum --format csv``).

A summary is an aggregate per kernel name, not a timeline: it gives time and instances, so each
name becomes a timed point (no FLOPs, no bytes) and the time is broken down by kernel class
group (GEMM/GEMV, attention, norm, elementwise, communication, other). Gaps cannot be computed.
Header names and time units are data (``mappings/nsys_v1.toml``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import msgspec

from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.errors import TraceFormatError
from rooftop.ingest.mapping import load
from rooftop.ingest.ncu import csv_rows
from rooftop.torchops.kernel_classes import classify, op_of, short_kernel

MAX_TOTAL_S = 1e9  # about 32 years of kernel time: beyond it a cell is not a measurement
MAX_INSTANCES = 2**53


class KernelSummary(msgspec.Struct, frozen=True):
    """One row: kernel name, total seconds (finite, >= 0), instances (an integer, >= 0)."""

    name: str
    total_s: Annotated[float, msgspec.Meta(ge=0.0, le=MAX_TOTAL_S)]
    instances: Annotated[int, msgspec.Meta(ge=0, le=MAX_INSTANCES)]


def _column(header: list[str], choices: list[str]) -> tuple[int, str]:
    for choice in choices:
        if choice in header:
            return header.index(choice), choice
    raise TraceFormatError(f"nsys summary: none of the columns {choices} in header {header[:9]}")


def _seconds_per_unit(column: str) -> float:
    units: dict[str, float] = load("nsys_v1")["time_units"]
    for suffix, scale in units.items():
        if suffix and column.endswith(suffix):
            return float(scale)
    return float(units[""])


def read_nsys(path: str | Path) -> tuple[list[KernelSummary], dict[str, int]]:
    """Rows of a kernel-summary CSV and skipped rows by reason; a non-summary file raises TraceFormatError."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceFormatError(f"{p}: cannot read as text: {exc}") from exc
    cols = load("nsys_v1")["columns"]
    start = next((i for i, line in enumerate(lines) if any(c in line for c in cols["total_time"])), -1)
    if start < 0:
        raise TraceFormatError(f"{p}: not an nsys kernel summary (no 'Total Time' column)")
    rows = csv_rows(p, lines[start:])
    header = rows[0]
    try:
        i_time, time_col = _column(header, cols["total_time"])
        i_n, _ = _column(header, cols["instances"])
        i_name, _ = _column(header, cols["name"])
    except TraceFormatError as exc:
        raise TraceFormatError(f"{p}: {exc}") from exc
    scale = _seconds_per_unit(time_col)
    out: list[KernelSummary] = []
    skipped: dict[str, int] = {}
    for row in rows[1:]:
        if not any(c.strip() for c in row):
            continue
        try:
            cells = {"total_s": float(row[i_time].replace(",", "")) * scale, "name": row[i_name]}
            count = float(row[i_n].replace(",", ""))
            cells["instances"] = int(count) if count.is_integer() and abs(count) <= MAX_INSTANCES else count
            out.append(msgspec.convert(cells, KernelSummary))
        except msgspec.ValidationError as exc:  # negative, NaN, inf, fractional instances
            what, _, where = str(exc).partition(" - at `$.")
            reason = f"out-of-range {where.rstrip('`')} ({what[0].lower()}{what[1:]})"
            skipped[reason] = skipped.get(reason, 0) + 1
        except (IndexError, ValueError):
            reason = "row without numeric total time / instances"
            skipped[reason] = skipped.get(reason, 0) + 1
    if not out:
        raise TraceFormatError(f"{p}: nsys kernel summary without any kernel row")
    return out, skipped


def summary_points(rows: list[KernelSummary], path: str) -> list[RooflinePoint]:
    """One timed point per kernel name (FLOPs and bytes unknown: 0)."""
    return [
        RooflinePoint(
            label=short_kernel(r.name),
            op=op_of(r.name),
            phase=Phase.UNKNOWN,
            flops=0.0,
            bytes=0.0,
            time_s=r.total_s,
            dtype="",
            source=Source.NSYS,
            count=r.instances,
            provenance={"kernel": r.name, "class": classify(r.name).name, "file": path},
        )
        for r in sorted(rows, key=lambda r: -r.total_s)
    ]


def breakdown(rows: list[KernelSummary]) -> dict[str, Any]:
    """Time per kernel class group and per class: seconds, share of kernel time, instances."""
    total = sum(r.total_s for r in rows)
    groups: dict[str, dict[str, float]] = {}
    classes: dict[str, dict[str, float]] = {}
    for r in rows:
        kc = classify(r.name)
        for table, key in ((groups, kc.group), (classes, kc.name)):
            entry = table.setdefault(key, {"time_s": 0.0, "instances": 0})
            entry["time_s"] += r.total_s
            entry["instances"] += r.instances
    for table in (groups, classes):
        for entry in table.values():
            entry["share"] = entry["time_s"] / total if total else 0.0
    return {
        "kernel_names": len(rows),
        "instances": sum(r.instances for r in rows),
        "total_s": total,
        "groups": _by_time(groups),
        "classes": _by_time(classes),
    }


def _by_time(table: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    return dict(sorted(table.items(), key=lambda kv: -kv[1]["time_s"]))
