"""Import entry point: files users already captured -> a Run of measured points, timeline and findings.

``import_path`` accepts one file or a folder. Traces give one Result per file (per rank in a
multi-rank folder) with a ``timeline`` and ``steps`` section; Nsight Compute exports give one
point per kernel launch and memory level; Nsight Systems summaries give timed points and a
breakdown by kernel class, and its GPU traces (cuda_gpu_trace) the trace's timeline and timed
points, without the host side. Files a folder holds that are none of these are listed as skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from msgspec.structs import replace

from rooftop.core.artifact import Result, Run
from rooftop.core.points import Source
from rooftop.core.roofs import Roofs
from rooftop.diagnose.engine import Evidence, diagnose
from rooftop.diagnose.evidence.timeline import TimelineEvidence
from rooftop.errors import TraceFormatError
from rooftop.ingest import steps, timeline, trace_points
from rooftop.ingest.builder import INT64_BOUND
from rooftop.ingest.detect import KINETO, NCU, NSYS_TRACE, detect
from rooftop.ingest.devices import per_device
from rooftop.ingest.join import join
from rooftop.ingest.kineto import read_trace
from rooftop.ingest.tables import Trace

Progress = Callable[[str, int], None]
# the result (one per device of a multi-GPU nsys trace), the roofs it implies, why there is no result
Outcome = tuple[Result | tuple[Result, ...] | None, Roofs | None, str]
_ROOFS_ONLY = "roofs only: an ncu roofline section, no kernel launch (its roofs serve the metrics files beside it)"
_UNTIMED = (
    "{n} kernel launch(es), none with a duration: collect gpu__time_duration.sum "
    "(or sm__cycles_elapsed.avg and sm__cycles_elapsed.avg.per_second) with ncu --metrics"
)
# the Nsight readers load when an Nsight file is read: a trace's cold start does not pay for them


def unknown_roofs(name: str) -> Roofs:
    """Roofs with no ceilings: points are still measured, but not placed under a roof."""
    return Roofs(name=name or "unknown", compute=(), memory=(), identity={"note": "pass --hardware for roofs"})


def _result(workload: dict[str, Any], points: list[Any], roofs: Roofs, extra: dict[str, Any]) -> Result:
    tl = extra.get("timeline")
    timeline = TimelineEvidence.from_dict(tl) if isinstance(tl, dict) else None
    findings = diagnose(Evidence(points, roofs, None, workload, timeline=timeline))
    return Result(workload=workload, points=tuple(points), findings=tuple(findings), extra=extra)


def trace_results(
    path: Path, roofs: Roofs | None, progress: Progress | None = None, host_ops: bool = False
) -> tuple[tuple[Result, ...], Roofs]:
    """One Kineto trace -> a Result per GPU in it, with points, ``timeline`` and ``steps`` sections.

    A process that drives several GPUs records them all in one trace: each gets its own Result,
    with ``device_index`` (ingest/devices.py). ``host_ops``: a trace without GPU kernels (an engine
    on CPU) has its working CPU operators taken as the kernels (api/host_trace.py).
    """
    trace = read_trace(path, (lambda n: progress(str(path), n)) if progress else None, require_kernels=not host_ops)
    if host_ops:
        from rooftop.api.host_trace import as_device
        from rooftop.torchops.cost import covered_ops

        trace = as_device(trace, frozenset(covered_ops()))
    views = per_device(trace)
    results, used = [], unknown_roofs("")
    for index, view in views:
        result, used = analysed(view, roofs, "trace", "cpu" if host_ops else "")
        if len(views) > 1:
            result = replace(result, workload={**result.workload, "device_index": index})
        if host_ops:
            result.extra["clock"] = clock(view)
        results.append(result)
    return tuple(results), used


def gpu_trace_results(path: Path, roofs: Roofs | None) -> tuple[tuple[Result, ...], Roofs]:
    """One nsys cuda_gpu_trace CSV -> a trace's Result per GPU in it, without the host side (ingest/nsys_trace.py)."""
    from rooftop.ingest.nsys_trace import read_gpu_trace

    results, used = [], unknown_roofs("")
    for index, trace in per_device(read_gpu_trace(path)):
        result, used = analysed(trace, roofs, "nsys-trace")
        points = tuple(replace(p, source=Source.NSYS) for p in result.points)  # timed by Nsight Systems
        results.append(replace(result, points=points, workload={**result.workload, "device_index": index}))
    return tuple(results), used


def analysed(trace: Trace, roofs: Roofs | None, source: str, default_device: str = "") -> tuple[Result, Roofs]:
    """A read Trace -> Result: its kernels as points, the ``timeline`` and ``steps`` sections, findings."""
    joined = join(trace)
    used = roofs or unknown_roofs(trace.device_name or default_device)
    workload = {
        "source": source,
        "file": trace.path,
        "rank": trace.rank,
        "device": trace.device_name,
        "vendor": trace.vendor,
        "hardware": used.name,
        "events": trace.events,
    }
    extra: dict[str, Any] = {"timeline": timeline.analyse(trace, joined), "steps": steps.breakdown(trace, joined)}
    return _result(workload, trace_points.points(trace, joined, trace.rank), used, extra), used


def clock(trace: Any) -> dict[str, Any]:
    """The trace's span on the wall clock: ``baseTimeNanoseconds`` + first and last event (µs)."""
    base = trace.metadata.get("baseTimeNanoseconds")
    ts = [t for t in (trace.cpu.ts_us, trace.gpu.ts_us) if t.size]
    ends = [t.ts_us + t.dur_us for t in (trace.cpu, trace.gpu) if t.ts_us.size]
    first = float(min(float(t.min()) for t in ts)) if ts else float("nan")
    last = float(max(float(e.max()) for e in ends)) if ends else float("nan")
    wall = isinstance(base, int | float) and abs(base) < INT64_BOUND  # not 1e400 written as an integer
    return {
        "base_time_ns": base if wall else None,
        "first_us": first,
        "last_us": last,
        "first_s": base / 1e9 + first * 1e-6 if wall else None,
        "last_s": base / 1e9 + last * 1e-6 if wall else None,
    }


def _sibling_roofs(path: Path) -> Roofs | None:
    from rooftop.ingest import ncu

    stem = path.name.split(".", 1)[0]
    for sibling in sorted(path.parent.glob(f"{stem}.*Roofline*.csv")):
        try:
            found = ncu.theoretical_roofs(ncu.read_ncu(sibling), f"ncu theoretical ({stem})")
        except TraceFormatError:
            continue
        if found:
            return found
    return None


def ncu_result(path: Path, roofs: Roofs | None) -> Outcome:
    """One ncu export -> Result, the roofs it implies, and why there is no Result when there is none.

    No Result: a roofline section alone (roofs only), or launches none of which has a duration.
    """
    from rooftop.ingest import ncu

    data = ncu.read_ncu(path)
    implied = ncu.theoretical_roofs(data, f"ncu theoretical ({path.name.split('.', 1)[0]})") or _sibling_roofs(path)
    names = dict.fromkeys(name for launch in data.launches if (name := launch.info.get("device_name")))
    device = ", ".join(names)  # device__attribute_display_name, when exported ("NVIDIA B200")
    used = roofs or implied or unknown_roofs(device or "unknown")
    points = [pt for launch in data.launches for pt in ncu.launch_points(launch, str(path))]
    skipped = dict(data.skipped)
    untimed = sum(1 for launch in data.launches if ncu.launch_time(launch.metrics) is None)
    if not points:
        return None, implied, _ROOFS_ONLY if data.roofline else _UNTIMED.format(n=untimed)
    if untimed:
        skipped["launch without a duration"] = untimed
    index = next((launch.info.get("Device", "") for launch in data.launches), "")
    workload = {"source": "ncu", "file": str(path), "device_index": index, "hardware": used.name}
    workload |= {"device": device, "vendor": "NVIDIA"}  # Nsight Compute profiles NVIDIA GPUs only
    summary = ncu.summary(data)
    if summary["missing_counters"]:  # the ncu-counters-missing rule reads it
        workload["missing_counters"] = summary["missing_counters"]
    extra = {"ncu": {**summary, "skipped": skipped}}
    return _result(workload, points, used, extra), implied, ""


def nsys_result(path: Path, roofs: Roofs | None) -> Result:
    """One nsys kernel summary -> Result with timed points and a class ``breakdown``."""
    from rooftop.ingest import nsys

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
    if not path.is_dir():
        raise TraceFormatError(f"{path}: not a regular file or a folder")
    found, skipped = [], {}
    for child in sorted(p for p in path.iterdir() if p.is_file()):
        try:
            found.append((child, detect(child)))
        except TraceFormatError as exc:
            skipped[child.name] = str(exc).split(": ", 1)[-1]
    if not found:
        raise TraceFormatError(f"{path}: no trace, ncu or nsys file in this folder")
    return found, skipped


def import_path(path: str | Path, roofs: Roofs | None = None, progress: Progress | None = None, jobs: int = 1) -> Run:
    """Import a file or a folder (one Result per file; per rank for a folder of traces).

    ``jobs`` > 1 reads the files of a folder in that many worker processes (api/parallel.py);
    results keep the folder's order either way.
    """
    files, skipped = _files(Path(path))
    results: list[Result] = []
    implied: Roofs | None = None
    folder = Path(path).is_dir()
    for file, outcome in _outcomes(files, roofs, progress, jobs):
        if isinstance(outcome, TraceFormatError):
            if not folder:
                raise outcome
            skipped[file.name] = str(outcome).split(": ", 1)[-1]  # keep the other ranks
            continue
        result, found, why = outcome
        implied = implied or found
        if result is not None:
            results.extend(result if isinstance(result, tuple) else (result,))
        elif folder:
            skipped[file.name] = why  # read, but nothing to plot: said, not dropped silently
        else:
            raise TraceFormatError(f"{path}: nothing to import ({why})")
    if not results:
        raise TraceFormatError(f"{path}: nothing to import ({'; '.join(f'{k}: {v}' for k, v in skipped.items())})")
    kinds = sorted({kind for _, kind in files})
    first_device = next((r.workload.get("device") for r in results if r.workload.get("device")), "")
    run_roofs = roofs or implied or unknown_roofs(str(first_device or "unknown"))
    identity = {"source": "import", "formats": kinds, "path": str(path), "skipped_files": skipped}
    return Run(command="import", roofs=run_roofs, results=tuple(results), identity=identity)


def _outcomes(
    files: list[tuple[Path, str]], roofs: Roofs | None, progress: Progress | None, jobs: int
) -> list[tuple[Path, Outcome | TraceFormatError]]:
    if jobs > 1 and len(files) > 1:
        from rooftop.api.parallel import import_many

        return import_many(files, roofs, jobs, outcome, progress)
    return [(file, outcome(file, kind, roofs, progress)) for file, kind in files]


def outcome(file: Path, kind: str, roofs: Roofs | None, progress: Progress | None = None) -> Outcome | TraceFormatError:
    """One file's result and implied roofs, or its TraceFormatError as a value (one bad rank never stops the rest)."""
    try:
        return _one(file, kind, roofs, progress)
    except TraceFormatError as exc:
        return exc


def _one(file: Path, kind: str, roofs: Roofs | None, progress: Progress | None) -> Outcome:
    if kind == KINETO:
        results, used = trace_results(file, roofs, progress)
        return results, (used if used.compute or used.memory else None), ""
    if kind == NCU:
        return ncu_result(file, roofs)
    if kind == NSYS_TRACE:
        results, used = gpu_trace_results(file, roofs)
        return results, (used if used.compute or used.memory else None), ""
    return nsys_result(file, roofs), None, ""
