"""What a profiler wrote instead of data: ncu's ``==ERROR==`` / ``==WARNING==`` lines, nsys stats' ``SKIPPED:``.

A file that holds no trace, ncu CSV or nsys summary but a profiler's own account of why is refused
with that account (one line, bounded), not with the list of formats: the user ran the right
command and the profiler said what went wrong (``No kernels were profiled``, a driver resource
held by DCGM, a report without CUDA kernel data).
"""

from __future__ import annotations

from rooftop.errors import one_line

LIMIT = 240  # characters of the profiler's own words kept in the one-line refusal


def _quote(parts: list[str]) -> str:
    text = one_line(" ".join(parts))
    return f'"{text if len(text) <= LIMIT else text[: LIMIT - 1] + "…"}"'


def refusal(lines: list[str]) -> str | None:
    """Why a profiler's output holds no data, in its own words; None when ``lines`` are no profiler's output."""
    stripped = [line.strip() for line in lines]
    ncu = [line for line in stripped if line.startswith(("==ERROR==", "==WARNING=="))]
    if ncu:
        return f"Nsight Compute profiled no kernel: {_quote(ncu)}"
    if any(line.startswith("==PROF==") for line in stripped):
        return 'Nsight Compute profiled no kernel: only ==PROF== lines, no CSV header ("ID",...,"Kernel Name")'
    nsys = [line for line in stripped if line.startswith("SKIPPED:")]
    if nsys:
        return f"nsys stats wrote no summary: {_quote(nsys)}"
    return None
