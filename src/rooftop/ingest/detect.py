"""Which reader a file needs: Kineto trace, Nsight Compute CSV, Nsight Systems summary or GPU trace.

Decided by content, not by extension: gzip magic or a leading '{'/'[' is a Chrome trace; a line
that is an ``ID,...,Kernel Name,...`` header (quoted or not: the test the ncu reader uses) is
Nsight Compute; a ``Start``, ``Duration``, ``CorrId`` and ``Name`` header is an nsys GPU trace
(``cuda_gpu_trace``); a ``Total Time`` column is an nsys summary. A profiler's output with none of these
is refused with the profiler's own reason (``tool_messages``).
"""

from __future__ import annotations

from pathlib import Path

from rooftop.errors import TraceFormatError
from rooftop.ingest.mapping import load
from rooftop.ingest.tool_messages import refusal

KINETO, NCU, NSYS, NSYS_TRACE = "kineto", "ncu", "nsys", "nsys-trace"
_SNIFF_BYTES = 65536
_NSYS_CSV = "import the CSV of `nsys stats --report cuda_gpu_trace --format csv FILE` (or cuda_gpu_kern_sum)"
# Binary reports a profiler writes before its CSV export: (leading bytes, file endings, what it is, what to do).
_REPORTS = (
    (b"NVIDIA Tegra Profiler Report", (".nsys-rep", ".qdrep"), "an Nsight Systems report", _NSYS_CSV),
    (b"SQLite format 3\x00", (".sqlite",), "an SQLite database (an nsys export?)", _NSYS_CSV),
    (None, (".ncu-rep",), "an Nsight Compute report", "import the CSV of `ncu --import FILE --csv --page raw`"),
    (None, (".xplane.pb",), "a TensorFlow/JAX profile (XPlane)", "rooftop reads PyTorch-profiler (Kineto) traces"),
)


def is_ncu_header(line: str) -> bool:
    """Whether ``line`` is an Nsight Compute CSV header: first cell ``ID`` and a ``Kernel Name`` cell, quoted or not."""
    stripped = line.lstrip("\ufeff").strip()
    if not stripped.startswith(('"ID"', "ID,")):
        return False
    import csv  # here: a trace's detection never reaches it (csv is ~1 ms of a cold start)

    try:
        cells = next(csv.reader([stripped]))
    except csv.Error:
        return False
    return cells[0] == "ID" and "Kernel Name" in cells


def is_nsys_trace_header(line: str) -> bool:
    """Whether ``line`` is an nsys cuda_gpu_trace header: a Start, a Duration, a CorrId and a Name column."""
    cells = {c.strip().strip('"') for c in line.lstrip("\ufeff").split(",")}
    cols = load("nsys_v1")["trace_columns"]
    return all(cells & set(cols[key]) for key in ("start", "duration", "correlation", "name"))


def detect(path: str | Path) -> str:
    """'kineto', 'ncu', 'nsys' or 'nsys-trace'; anything else raises TraceFormatError naming what was expected."""
    p = Path(path)
    try:
        with p.open("rb") as f:
            head = f.read(_SNIFF_BYTES)
    except OSError as exc:
        raise TraceFormatError(f"{p}: cannot read: {exc.strerror or exc}") from exc
    if head[:2] == b"\x1f\x8b":
        return KINETO
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    if text.lstrip()[:1] in ("{", "["):
        return KINETO
    lines = text.splitlines()
    if any(is_ncu_header(line) for line in lines):
        return NCU
    if any(is_nsys_trace_header(line) for line in lines[:64]):
        return NSYS_TRACE
    if "Total Time" in text and ("Instances" in text or "Calls" in text):
        return NSYS
    why = refusal(lines) or _binary_report(p, head)
    if why:
        raise TraceFormatError(f"{p}: {why}")
    raise TraceFormatError(
        f"{p}: not a Kineto trace (.json/.json.gz), Nsight Compute CSV (--csv --page raw|details) "
        "or nsys report (nsys stats --report cuda_gpu_trace|cuda_gpu_kern_sum --format csv)"
    )


def _binary_report(p: Path, head: bytes) -> str | None:
    """What binary profiler report ``p`` is, by its leading bytes or its name, and the export rooftop reads."""
    for magic, endings, what, how in _REPORTS:
        if (magic is not None and head.startswith(magic)) or p.name.lower().endswith(endings):
            return f"{what}, which rooftop does not read: {how}"
    return None
