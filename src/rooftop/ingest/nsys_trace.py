"""Nsight Systems GPU traces (``nsys stats --report cuda_gpu_trace --format csv``) as a Trace.

Each row is one kernel, memcpy or memset with its start, duration, device and stream: the file
reads into the same GPU table as a Kineto trace, so it gets the same timeline (busy time, idle
gaps, copies, communication kernels by name) and one timed point per kernel. What it lacks is the
host side: no launch calls, no CPU operators, no profiler steps. So its gaps are not split into
launch, sync and host causes, and its kernels carry no shapes (no FLOPs, no bytes; timed points
classed by name). Column names and units are data (``mappings/nsys_v1.toml``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from rooftop.errors import TraceFormatError
from rooftop.ingest.detect import is_nsys_trace_header
from rooftop.ingest.mapping import load
from rooftop.ingest.ncu import csv_rows
from rooftop.ingest.tables import KERNEL, MEMCPY, MEMSET, CpuTable, GpuTable, LaunchTable, Trace

_DEVICE = re.compile(r"^(?P<name>.*?)\s*\((?P<index>\d+)\)\s*$")  # "NVIDIA H100 80GB HBM3 (0)"
_NOT_A_ROW = "row without a numeric start and duration"


def _columns(header: list[str]) -> dict[str, tuple[int, str]]:
    """Field -> (index, header text) for each trace column the header has."""
    found = {}
    for key, choices in load("nsys_v1")["trace_columns"].items():
        hit = next((c for c in choices if c in header), None)
        if hit is not None:
            found[key] = (header.index(hit), hit)
    return found


def _scale(column: str, table: str) -> float:
    units: dict[str, float] = load("nsys_v1")[table]
    return float(next((scale for suffix, scale in units.items() if suffix and column.endswith(suffix)), units[""]))


def _to_us(value: float, unit_s: float) -> float:
    """``value`` in units of ``unit_s`` as µs (the GPU table's unit); ns divide by exactly 1,000 (7,072 -> 7.072)."""
    return value / round(1e-6 / unit_s) if unit_s < 1e-6 else value * (unit_s / 1e-6)


def _number(text: str) -> float:
    """One cell: '' -> NaN; thousands separators dropped; negatives and infinities raise ValueError."""
    raw = text.strip().replace(",", "")
    if not raw:
        return math.nan
    number = float(raw)
    if not 0.0 <= number < math.inf:
        raise ValueError(raw)
    return number


def read_gpu_trace(path: str | Path) -> Trace:
    """The rows of one cuda_gpu_trace CSV as a Trace (GPU table only); a file without rows raises."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceFormatError(f"{p}: cannot read as text: {exc}") from exc
    start = next((i for i, line in enumerate(lines) if is_nsys_trace_header(line)), -1)
    if start < 0:
        raise TraceFormatError(f"{p}: not an nsys GPU trace (no Start, Duration, CorrId and Name columns)")
    rows = csv_rows(p, lines[start:])
    cols = _columns(rows[0])
    ts_unit = _scale(cols["start"][1], "time_units")  # seconds per unit of each column
    dur_unit = _scale(cols["duration"][1], "time_units")
    byte_scale = _scale(cols["bytes"][1], "byte_units") if "bytes" in cols else 1.0
    kept: dict[str, list[Any]] = {k: [] for k in ("ts", "dur", "stream", "device", "corr", "name", "bytes")}
    devices: dict[int, str] = {}
    skipped: dict[str, int] = {}
    for row in rows[1:]:
        if not any(c.strip() for c in row):
            continue
        try:
            _keep(row, cols, (ts_unit, dur_unit, byte_scale), kept, devices)
        except (IndexError, ValueError):
            skipped[_NOT_A_ROW] = skipped.get(_NOT_A_ROW, 0) + 1
    if not kept["ts"]:
        raise TraceFormatError(f"{p}: nsys GPU trace without any kernel or copy row")
    return _trace(p, kept, devices, skipped)


def _keep(
    row: list[str],
    cols: dict[str, tuple[int, str]],
    scales: tuple[float, float, float],
    kept: dict[str, list[Any]],
    devices: dict[int, str],
) -> None:
    """Append one row's cells to ``kept`` (raises ValueError/IndexError on a row that is not one)."""
    cell = {key: row[i] for key, (i, _) in cols.items()}
    ts, dur = _number(cell["start"]), _number(cell["duration"])
    if math.isnan(ts) or math.isnan(dur):
        raise ValueError("no start or duration")
    match = _DEVICE.match(cell.get("device", ""))
    index = int(match["index"]) if match else 0
    if match and match["name"]:
        devices.setdefault(index, match["name"])
    stream = _number(cell.get("stream", ""))
    corr = _number(cell.get("correlation", ""))
    kept["ts"].append(_to_us(ts, scales[0]))
    kept["dur"].append(_to_us(dur, scales[1]))
    kept["stream"].append(-1 if math.isnan(stream) else int(stream))
    kept["device"].append(index)
    kept["corr"].append(-1 if math.isnan(corr) else int(corr))
    kept["name"].append(cell["name"])
    kept["bytes"].append(_number(cell.get("bytes", "")) * scales[2])


def _trace(p: Path, kept: dict[str, list[Any]], devices: dict[int, str], skipped: dict[str, int]) -> Trace:
    names = list(dict.fromkeys(kept["name"]))
    ids = {name: i for i, name in enumerate(names)}
    marks = load("nsys_v1")["activity_names"]
    kinds = [
        MEMCPY if n.startswith(marks["memcpy"]) else MEMSET if n.startswith(marks["memset"]) else KERNEL
        for n in kept["name"]
    ]
    order = np.argsort(np.asarray(kept["ts"], dtype=np.float64), kind="stable")

    def i64(xs: list[Any]) -> Any:
        return np.asarray(xs, dtype=np.int64)[order]

    def f64(xs: list[Any]) -> Any:
        return np.asarray(xs, dtype=np.float64)[order]

    gpu = GpuTable(
        ts_us=f64(kept["ts"]),
        dur_us=f64(kept["dur"]),
        stream=i64(kept["stream"]),
        device=i64(kept["device"]),
        correlation=i64(kept["corr"]),
        name_id=i64([ids[n] for n in kept["name"]]),
        kind=i64(kinds),
        bytes=np.where(i64(kinds) == KERNEL, np.nan, f64(kept["bytes"])),
    )
    none_f, none_i = np.empty(0, dtype=np.float64), np.empty(0, dtype=np.int64)
    launches = LaunchTable(none_f, none_f, none_i, none_i, none_i, none_i)
    cpu = CpuTable(none_f, none_f, none_i, none_i, none_i, none_i, [])
    metadata = {"deviceProperties": [{"id": i, "name": devices[i]} for i in sorted(devices)]}  # as Kineto writes
    return Trace(str(p), names, gpu, launches, cpu, [], {}, metadata, len(kept["ts"]), skipped)
