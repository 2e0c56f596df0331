"""Helpers for ingest tests: load a fixture trace once, write small synthetic traces."""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

from rooftop.ingest.join import Joined, join
from rooftop.ingest.kineto import Trace, read_trace
from tests.conftest import data_path


@cache
def real(folder: str, name: str) -> tuple[Trace, Joined]:
    """A real trace under tests/data/<folder>/ and its joins (parsed once per session)."""
    trace = read_trace(data_path(folder, name))
    return trace, join(trace)


def hta(name: str) -> tuple[Trace, Joined]:
    """A fixture trace of tests/data/hta-traces/ and its joins (parsed once per session)."""
    return real("hta-traces", name)


def kernel(ts: float, dur: float, corr: int = -1, name: str = "k", stream: int = 7, **args: Any) -> dict[str, Any]:
    """A Kineto kernel event."""
    return {
        "ph": "X",
        "cat": "kernel",
        "name": name,
        "pid": 0,
        "tid": stream,
        "ts": ts,
        "dur": dur,
        "args": {"correlation": corr, "stream": stream, "device": 0, **args},
    }


def launch(
    ts: float,
    dur: float,
    corr: int,
    name: str = "cudaLaunchKernel",
    cat: str = "cuda_runtime",
    tid: int = 1,
    ext: int = -1,
) -> dict[str, Any]:
    """A host launch call."""
    return {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": 1,
        "tid": tid,
        "ts": ts,
        "dur": dur,
        "args": {"correlation": corr, "External id": ext},
    }


def cpu_op(ts: float, dur: float, name: str, tid: int = 1, ext: int = -1, **args: Any) -> dict[str, Any]:
    """A CPU operator."""
    return {
        "ph": "X",
        "cat": "cpu_op",
        "name": name,
        "pid": 1,
        "tid": tid,
        "ts": ts,
        "dur": dur,
        "args": {"External id": ext, **args},
    }


def write_trace(path: Path, events: list[Any], gz: bool = False, **top: Any) -> Path:
    """Write a Chrome trace with ``events`` (gzip when ``gz``)."""
    text = json.dumps({"schemaVersion": 1, **top, "traceEvents": events})
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def assert_same_trace(a: Trace, b: Trace) -> None:
    """Every table column, interned list, step, NCCL arg, skip reason and header key equal (NaN == NaN)."""
    import dataclasses

    import numpy as np

    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if dataclasses.is_dataclass(x):
            for g in dataclasses.fields(x):
                u, v = getattr(x, g.name), getattr(y, g.name)
                if isinstance(u, np.ndarray):
                    assert u.dtype == v.dtype and np.array_equal(u, v, equal_nan=True), f"{f.name}.{g.name}"
                else:
                    assert u == v, f"{f.name}.{g.name}"
        elif f.name != "path":
            assert x == y, f.name
