"""Import entry point: files users already captured -> a Run of measured points, timeline and findings.

``import_path`` accepts one file or a folder. Traces give one Result per file (per rank in a
multi-rank folder) with a ``timeline`` and ``steps`` section; Nsight Compute exports give one
point per kernel launch and memory level; Nsight Systems summaries give timed points and a
breakdown by kernel class. Files a folder holds that are none of these are listed as skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rooftop.core.artifact import Result, Run
from rooftop.core.roofs import Roofs
from rooftop.diagnose.engine import Evidence, diagnose
from rooftop.diagnose.evidence import TimelineEvidence
from rooftop.errors import TraceFormatError
from rooftop.ingest import ncu, nsys, steps, timeline, trace_points
from rooftop.ingest.detect import KINETO, NCU, detect
from rooftop.ingest.join import join
from rooftop.ingest.kineto import read_trace

Progress = Callable[[str, int], None]
_NO_TIMED_LAUNCH = "no timed kernel launch: an ncu roofline section alone gives roofs, import it with its metrics file"


def unknown_roofs(name: str) -> Roofs:
    """Roofs with no ceilings: points are still measured, but not placed under a roof."""
    return Roofs(name=name or "unknown", compute=(), memory=(), identity={"note": "pass --hardware for roofs"})


def _result(workload: dict[str, Any], points: list[Any], roofs: Roofs, extra: dict[str, Any]) -> Result:
    tl = extra.get("timeline")
    timeline = TimelineEvidence.from_dict(tl) if isinstance(tl, dict) else None
    findings = diagnose(Evidence(points, roofs, None, workload, timeline=timeline))
    return Result(workload=workload, points=tuple(points), findings=tuple(findings), extra=extra)


def trace_result(path: Path, roofs: Roofs | None, progress: Progress | None = None) -> tuple[Result, Roofs]:
    """One Kineto trace -> Result with points, ``timeline`` and ``steps`` sections."""
    trace = read_trace(path, (lambda n: progress(str(path), n)) if progress else None)
    joined = join(trace)
    used = roofs or unknown_roofs(trace.device_name)
    workload = {
        "source": "trace",
        "file": str(path),
        "rank": trace.rank,
        "device": trace.device_name,
        "vendor": trace.vendor,
        "hardware": used.name,
        "events": trace.events,
    }
    extra = {"timeline": timeline.analyse(trace, joined), "steps": steps.breakdown(trace, joined)}
    return _result(workload, trace_points.points(trace, joined, trace.rank), used, extra), used


def _sibling_roofs(path: Path) -> Roofs | None:
    stem = path.name.split(".", 1)[0]
    for sibling in sorted(path.parent.glob(f"{stem}.*Roofline*.csv")):
        try:
            found = ncu.theoretical_roofs(ncu.read_ncu(sibling), f"ncu theoretical ({stem})")
        except TraceFormatError:
            continue
        if found:
            return found
    return None


def ncu_result(path: Path, roofs: Roofs | None) -> tuple[Result | None, Roofs | None]:
    """One ncu export -> Result (None when it holds only a roofline section) and the roofs it implies."""
    data = ncu.read_ncu(path)
    implied = ncu.theoretical_roofs(data, f"ncu theoretical ({path.name.split('.', 1)[0]})") or _sibling_roofs(path)
    used = roofs or implied or unknown_roofs("unknown")
    points = [pt for launch in data.launches for pt in ncu.launch_points(launch, str(path))]
    skipped = dict(data.skipped)
    untimed = sum(1 for launch in data.launches if not ncu.launch_points(launch, str(path)))
    if untimed and not points:
        return None, implied
    if untimed:
        skipped["launch without gpu__time_duration"] = untimed
    device = next((launch.info.get("Device", "") for launch in data.launches), "")
    workload = {"source": "ncu", "file": str(path), "device_index": device, "hardware": used.name}
    summary = ncu.summary(data)
    if summary["missing_counters"]:  # the ncu-counters-missing rule reads it
        workload["missing_counters"] = summary["missing_counters"]
    extra = {"ncu": {**summary, "skipped": skipped}}
    return _result(workload, points, used, extra), implied


def nsys_result(path: Path, roofs: Roofs | None) -> Result:
    """One nsys kernel summary -> Result with timed points and a class ``breakdown``."""
    rows, skipped = nsys.read_nsys(path)
    used = roofs or unknown_roofs("unknown")
    workload = {"source": "nsys", "file": str(path), "hardware": used.name}
    extra = {"breakdown": {**nsys.breakdown(rows), "skipped": skipped}}
    return _result(workload, nsys.summary_points(rows, str(path)), used, extra)


def _files(path: Path) -> tuple[list[tuple[Path, str]], dict[str, str]]:
    if not path.exists():
        raise TraceFormatError(f"{path}: no such file or folder")
    if path.is_file():
        return [(path, detect(path))], {}
    found, skipped = [], {}
    for child in sorted(p for p in path.iterdir() if p.is_file()):
        try:
            found.append((child, detect(child)))
        except TraceFormatError as exc:
            skipped[child.name] = str(exc).split(": ", 1)[-1]
    if not found:
        raise TraceFormatError(f"{path}: no trace, ncu or nsys file in this folder")
    return found, skipped


def import_path(path: str | Path, roofs: Roofs | None = None, progress: Progress | None = None) -> Run:
    """Import a file or a folder (one Result per file; per rank for a folder of traces)."""
    files, skipped = _files(Path(path))
    results: list[Result] = []
    implied: Roofs | None = None
    folder = Path(path).is_dir()
    for file, kind in files:
        try:
            result, found = _one(file, kind, roofs, progress)
        except TraceFormatError as exc:
            if not folder:
                raise
            skipped[file.name] = str(exc).split(": ", 1)[-1]  # keep the other ranks
            continue
        implied = implied or found
        if result is not None:
            results.append(result)
    if not results:
        why = "; ".join(f"{k}: {v}" for k, v in skipped.items()) or _NO_TIMED_LAUNCH
        raise TraceFormatError(f"{path}: nothing to import ({why})")
    kinds = sorted({kind for _, kind in files})
    first_device = next((r.workload.get("device") for r in results if r.workload.get("device")), "")
    run_roofs = roofs or implied or unknown_roofs(str(first_device or "unknown"))
    identity = {"source": "import", "formats": kinds, "path": str(path), "skipped_files": skipped}
    return Run(command="import", roofs=run_roofs, results=tuple(results), identity=identity)


def _one(file: Path, kind: str, roofs: Roofs | None, progress: Progress | None) -> tuple[Result | None, Roofs | None]:
    if kind == KINETO:
        result, used = trace_result(file, roofs, progress)
        return result, (used if used.compute or used.memory else None)
    if kind == NCU:
        return ncu_result(file, roofs)
    return nsys_result(file, roofs), None
