"""Read the files of an import in parallel: one worker process per job, one file per task.

A trace is parsed and analysed entirely inside its worker (the GIL bounds threads to one core);
only the finished Result (points, timeline, steps: kilobytes) comes back. Workers are forked
where the platform allows it, so they start with rooftop's modules already imported; elsewhere
they are spawned. A file's TraceFormatError comes back as a value, so one bad rank never stops
the others; progress is reported per finished file.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from rooftop.core.artifact import Result
from rooftop.core.roofs import Roofs
from rooftop.errors import TraceFormatError

Outcome = tuple[Result | tuple[Result, ...] | None, Roofs | None, str]  # api/ingest.py: results, roofs, why none


Work = Callable[[Path, str, "Roofs | None"], "Outcome | TraceFormatError"]  # a module-level function: picklable


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods and sys.platform == "linux" else "spawn")


def import_many(
    files: list[tuple[Path, str]],
    roofs: Roofs | None,
    jobs: int,
    work: Work,
    progress: Callable[[str, int], None] | None = None,
) -> list[tuple[Path, Outcome | TraceFormatError]]:
    """Each file's ``work(file, kind, roofs)``, in the order of ``files``, done by ``jobs`` worker processes."""
    done: dict[int, Outcome | TraceFormatError] = {}
    with ProcessPoolExecutor(max_workers=min(jobs, len(files)), mp_context=_context()) as pool:
        futures = {pool.submit(work, f, kind, roofs): i for i, (f, kind) in enumerate(files)}
        for n, fut in enumerate(as_completed(futures), start=1):
            done[futures[fut]] = fut.result()
            if progress:
                progress(f"{n}/{len(files)} files", 0)
    return [(files[i][0], done[i]) for i in range(len(files))]
