"""Nsight Compute CSV exports -> one roofline point per kernel launch and memory level.

Two export styles are read, both possibly preceded by program output and ``==PROF==`` lines:

* long (``--page details``, or ``--csv`` with ``--metrics``): one row per metric with
  ``Metric Name``, ``Metric Unit``, ``Metric Value`` columns;
* wide (``--page raw``): one row per launch, a header of metric names and a units row.

Values may carry thousands separators, auto-scaled units (``Mbyte``, ``us``) and ``n/a``; the
separators are the locale's of the machine ncu ran on (``1,234.5`` or ``1.234,5``: ``ncu_numbers``).
Metric names and unit factors are data (``mappings/ncu_v1.toml``). FLOPs: SASS add/mul (1) and
fma (2) per precision plus the tensor-pipe counters; bytes per level: DRAM (``hbm``), L2, L1.
The SpeedOfLight roofline section, when exported, gives theoretical roofs (per-cycle peak × clock).
"""

from __future__ import annotations

import csv
import math
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.core.roofs import ComputeRoof, MemoryRoof, RoofKind, Roofs
from rooftop.errors import TraceFormatError
from rooftop.ingest.detect import is_ncu_header
from rooftop.ingest.mapping import load
from rooftop.ingest.ncu_numbers import EN_US, NumberFormat, detect
from rooftop.torchops.kernel_classes import classify, op_of, short_kernel

ID, KERNEL = "ID", "Kernel Name"
INFO = ("Device", "CC", "Block Size", "Grid Size", "Stream", "Process Name")  # identity columns kept per launch


class NcuLaunch(msgspec.Struct):
    """One profiled launch: identity columns and its metrics in SI (missing = absent key)."""

    id: str
    kernel: str
    info: dict[str, str]
    metrics: dict[str, float] = msgspec.field(default_factory=dict)


class NcuFile(msgspec.Struct):
    """Everything read from one export."""

    path: str
    launches: list[NcuLaunch]
    roofline: dict[str, dict[str, float]]  # body item label -> metric -> SI value
    skipped: dict[str, int]
    numbers: NumberFormat = EN_US  # the separators its values are written with


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8-sig", errors="strict").splitlines()
    except OSError as exc:
        raise TraceFormatError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise TraceFormatError(f"{path}: not a text CSV ({exc.reason} at byte {exc.start})") from exc


def csv_rows(path: Path, lines: list[str]) -> list[list[str]]:
    """CSV rows of ``lines``; a malformed CSV (a field over the csv module's limit...) raises TraceFormatError."""
    reader = csv.reader(lines)
    try:
        return list(reader)
    except csv.Error as exc:
        raise TraceFormatError(f"{path}: malformed CSV at line {reader.line_num}: {exc}") from exc


def header_index(lines: list[str]) -> int:
    """Index of the ncu CSV header line (``detect.is_ncu_header``: what detection looks for), -1 if none."""
    return next((i for i, line in enumerate(lines) if is_ncu_header(line)), -1)


def value(text: str, unit: str, units: dict[str, float], numbers: NumberFormat = EN_US) -> float | None:
    """SI value of one cell written with ``numbers``' separators: 'n/a'/'' -> None; unknown unit -> ValueError."""
    raw = text.strip()
    if raw in ("", "n/a", "N/A", "nan"):
        return None
    if unit not in units:
        raise ValueError(f"unknown unit {unit!r}")
    number = numbers.parse(raw) * float(units[unit])
    if not 0.0 <= number < math.inf:  # counters, bytes and times: NaN, inf and negatives are not measurements
        raise ValueError(f"{text.strip()[:40]!r} is not a finite non-negative value")
    return number


def read_ncu(path: str | Path) -> NcuFile:
    """Parse one ncu CSV export (long or wide); a file with no ncu header raises TraceFormatError."""
    p = Path(path)
    lines = _lines(p)
    start = header_index(lines)
    if start < 0:
        raise TraceFormatError(f'{p}: no Nsight Compute header ("ID",...,"Kernel Name",...) found')
    rows = [r for r in csv_rows(p, lines[start:]) if any(c.strip() for c in r)]
    header = rows[0]
    units: dict[str, float] = load("ncu_v1")["units"]
    out = NcuFile(str(p), [], {}, {})
    if "Metric Name" in header and "Metric Value" in header:
        at = header.index("Metric Value")
        out.numbers = detect(row[at] for row in rows[1:] if len(row) > at)
        _long(header, rows[1:], units, out)
    else:
        metric_columns = [i for i, name in enumerate(header) if "__" in name]
        out.numbers = detect(row[i] for row in rows[1:] for i in metric_columns if i < len(row))
        _wide(header, rows[1:], units, out)
    if not out.launches and not out.roofline:
        raise TraceFormatError(f"{p}: Nsight Compute header but no kernel rows")
    return out


def _skip(out: NcuFile, reason: str) -> None:
    out.skipped[reason] = out.skipped.get(reason, 0) + 1


@cache
def read_metrics() -> frozenset[str]:
    """Every metric rooftop reads (ncu_v1.toml): times, cycles, bytes, FLOPs and the roofline section's."""
    mapping = load("ncu_v1")
    roof = mapping["roofline"]
    return frozenset(
        [*mapping["time"], *(name for pair in mapping["time_from_cycles"] for name in pair)]
        + [name for alternatives in mapping["bytes"].values() for names in alternatives for name in names]
        + [*mapping["flops"], *mapping["flops_fallback"], *(metric for metric, _ in roof["peaks"].values())]
        + [roof["dram_bytes_per_cycle"], roof["dram_clock"], roof["sm_clock"]]
    )


def _number(out: NcuFile, metric: str, text: str, unit: str, units: dict[str, float]) -> float | None:
    """``text`` in SI, None when empty; a cell that is no number is a skip reason only for a metric rooftop reads.

    ncu's other metrics include text ('SIMT', 'CachePreferNone') and units no roofline needs
    ('block', 'register/thread'): reporting them buried the reasons that matter.
    """
    try:
        return value(text, unit, units, out.numbers)
    except ValueError as exc:
        if metric in read_metrics():
            _skip(out, f"{metric}: {exc}")
        return None


def _launch(by_id: dict[tuple[str, str], NcuLaunch], cell: dict[str, str]) -> NcuLaunch:
    key = (cell[ID], cell.get(KERNEL, ""))
    if key not in by_id:
        by_id[key] = NcuLaunch(key[0], key[1], {k: cell.get(k, "") for k in INFO})
    return by_id[key]


def _long(header: list[str], rows: list[list[str]], units: dict[str, float], out: NcuFile) -> None:
    needed = max(header.index(c) for c in (ID, KERNEL, "Metric Name", "Metric Value"))
    section, texts = load("ncu_v1")["roofline"]["section"], load("ncu_v1")["text"]
    by_id: dict[tuple[str, str], NcuLaunch] = {}
    for row in rows:
        if len(row) <= needed or not row[0].strip():  # trailing rule columns may be cut, not the metric
            _skip(out, "short or unnamed row")
            continue
        cell = dict(zip(header, row))
        metric, unit = cell.get("Metric Name", ""), cell.get("Metric Unit", "")
        if not metric:
            continue
        text = cell.get("Metric Value", "").strip()
        if metric in texts:
            if text:
                _launch(by_id, cell).info.setdefault(texts[metric], text)
            continue
        v = _number(out, metric, text, unit, units)
        if v is None:
            continue
        label = cell.get("Body Item Label", "")
        if cell.get("Section Name") == section and label:
            out.roofline.setdefault(label, {})[metric] = v
            continue
        _launch(by_id, cell).metrics.setdefault(metric, v)
    out.launches.extend(by_id.values())


def _wide(header: list[str], rows: list[list[str]], units: dict[str, float], out: NcuFile) -> None:
    texts = load("ncu_v1")["text"]
    unit_row = rows[0] if rows and not rows[0][0].strip() else [""] * len(header)
    data = rows[1:] if rows and not rows[0][0].strip() else rows
    if not data:
        raise TraceFormatError(f"{out.path}: Nsight Compute raw page with a units row but no launches")
    for row in data:
        if len(row) != len(header):
            _skip(out, f"row with {len(row)} cells for {len(header)} columns")
            continue
        cell = dict(zip(header, row))
        launch = NcuLaunch(cell[ID], cell.get(KERNEL, ""), {k: cell.get(k, "") for k in INFO})
        for name, text, unit in zip(header, row, unit_row):
            if "__" not in name:  # identity columns (ID, Kernel Name, ...) are not metrics
                continue
            if name in texts:
                if text.strip():
                    launch.info.setdefault(texts[name], text.strip())
                continue
            v = _number(out, name, text, unit, units)
            if v is not None:
                launch.metrics[name] = v
        out.launches.append(launch)


def _flops(metrics: dict[str, float]) -> tuple[float, str]:
    mapping = load("ncu_v1")
    for table in (mapping["flops"], mapping["flops_fallback"]):
        by_dtype: dict[str, float] = {}
        for name, (per, dtype) in table.items():
            if name in metrics:
                by_dtype[dtype] = by_dtype.get(dtype, 0.0) + metrics[name] * per
        if by_dtype:
            top = max(by_dtype, key=lambda d: by_dtype[d])
            return sum(by_dtype.values()), top if by_dtype[top] > 0 else ""
    return 0.0, ""


def _level_bytes(metrics: dict[str, float]) -> dict[str, float]:
    out = {}
    for level, alternatives in load("ncu_v1")["bytes"].items():
        for names in alternatives:
            present = [metrics[n] for n in names if n in metrics]
            if present:
                out[level] = sum(present)
                break
    return out


def launch_time(metrics: dict[str, float]) -> tuple[float, str] | None:
    """A launch's duration (s) and the metrics it came from, or None.

    A duration metric (``time``) first; else elapsed cycles / cycles per second (``time_from_cycles``:
    ncu 2021 ``--metrics`` lists that left ``gpu__time_duration`` out still carry ``sm__cycles_elapsed``).
    """
    mapping = load("ncu_v1")
    for name in mapping["time"]:
        if name in metrics:
            return metrics[name], name
    for cycles, rate in mapping["time_from_cycles"]:
        if cycles in metrics and metrics.get(rate, 0.0) > 0.0:
            return metrics[cycles] / metrics[rate], f"{cycles} / {rate}"
    return None


def launch_points(launch: NcuLaunch, path: str) -> list[RooflinePoint]:
    """One point per memory level with counters (an ``hbm`` point with 0 bytes when there are none).

    A launch without a duration gives no point (the caller records it as skipped); the metrics the
    duration came from are in each point's provenance (``duration``).
    """
    timed = launch_time(launch.metrics)
    if timed is None:
        return []
    time_s, duration = timed
    flops, dtype = _flops(launch.metrics)
    levels = _level_bytes(launch.metrics) or {"hbm": 0.0}
    kc = classify(launch.kernel)
    return [
        RooflinePoint(
            label=f"#{launch.id} {short_kernel(launch.kernel)}",
            op=op_of(launch.kernel),
            phase=Phase.UNKNOWN,
            flops=flops,
            bytes=moved,
            time_s=time_s,
            dtype=dtype,
            source=Source.NCU,
            level=level,
            provenance={
                "kernel": launch.kernel,
                "id": launch.id,
                "class": kc.name,
                "file": path,
                "duration": duration,
                **launch.info,
            },
        )
        for level, moved in levels.items()
    ]


def missing_counters(ncu: NcuFile) -> dict[str, str]:
    """Counter groups no timed launch carries -> the ``--metrics`` that collect them (ncu_v1.toml ``missing``).

    Without DRAM bytes a launch still gives a timed ``hbm`` point, but with 0 bytes; without FLOP
    counters its FLOPs are 0: say so instead of plotting them silently.
    """
    mapping = load("ncu_v1")
    hbm = [name for names in mapping["bytes"]["hbm"] for name in names]
    flop = [*mapping["flops"], *mapping["flops_fallback"]]
    timed = [launch.metrics for launch in ncu.launches if launch_time(launch.metrics) is not None]
    out: dict[str, str] = {}
    for group, names in (("DRAM byte counters", hbm), ("FLOP counters", flop)):
        if timed and not any(n in m for m in timed for n in names):
            out[group] = mapping["missing"][group]
    return out


def theoretical_roofs(ncu: NcuFile, name: str) -> Roofs | None:
    """Roofs from the SpeedOfLight roofline section (peak per cycle × clock), or None without it."""
    spec = load("ncu_v1")["roofline"]
    compute: list[ComputeRoof] = []
    memory: list[MemoryRoof] = []
    source = f"{ncu.path} (ncu {spec['section']})"
    for label, (peak_metric, dtype) in spec["peaks"].items():
        item = ncu.roofline.get(label, {})
        if peak_metric in item and spec["sm_clock"] in item:
            compute.append(ComputeRoof(dtype, item[peak_metric] * item[spec["sm_clock"]], RoofKind.THEORETICAL, source))
        if not memory and spec["dram_bytes_per_cycle"] in item and spec["dram_clock"] in item:
            bw = item[spec["dram_bytes_per_cycle"]] * item[spec["dram_clock"]]
            memory.append(MemoryRoof("hbm", bw, RoofKind.THEORETICAL, source))
    if not compute and not memory:
        return None
    return Roofs(name=name, compute=tuple(compute), memory=tuple(memory), identity={"from": "ncu roofline section"})


def summary(ncu: NcuFile) -> dict[str, Any]:
    """What the file held: launches, how its numbers are written, roofline items, skipped rows by reason."""
    return {
        "launches": len(ncu.launches),
        "numbers": ncu.numbers.example,
        "roofline_items": sorted(ncu.roofline),
        "skipped": dict(ncu.skipped),
        "missing_counters": missing_counters(ncu),
    }
