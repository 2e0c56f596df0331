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
    import msgspec
    import numpy as np

    for name in a.__struct_fields__:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, msgspec.Struct):
            for column in x.__struct_fields__:
                u, v = getattr(x, column), getattr(y, column)
                if isinstance(u, np.ndarray):
                    assert u.dtype == v.dtype and np.array_equal(u, v, equal_nan=True), f"{name}.{column}"
                else:
                    assert u == v, f"{name}.{column}"
        elif name != "path":
            assert x == y, name


# DeepSeek's DualPipe training trace (deepseek-ai/profile-data, train.json) carries no licence, so it is
# not vendored. This trace is rebuilt from its documented kernel table (names as DeepEP, MIT, spells
# them; launches and summed µs recounted from the real file): 32 expert-parallel all-to-all kernels,
# 113,030 µs on one stream, 108,868 µs of it under one compute kernel, 128 ms busy in all.
DEEPEP_COMM = (
    ("void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(void*, int const*)", 8, 49_448),
    ("void dpsk::ep::internode::cached_notify<false>(int, int*)", 12, 23_610),
    ("void dpsk::ep::internode::dispatch<false, 8, false, 8>(void*, int const*)", 4, 17_383),
    ("void dpsk::ep::internode::dispatch<false, 8, true, 8>(void*, int const*)", 4, 13_621),
    ("void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, int*)", 4, 8_968),
)
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"


def _split(total: int, n: int) -> list[int]:
    base, rest = divmod(total, n)
    return [base + (1 if i < rest else 0) for i in range(n)]


def deepep_trace(path: Path) -> Path:
    """Write the DualPipe-shaped trace described above to ``path`` (a .json.gz) and return it."""
    events, t = [], 1000
    for name, n, total in DEEPEP_COMM:
        for dur in _split(total, n):
            events.append(kernel(t, dur, len(events) + 1, name, stream=20))
            t += dur
    events.append(kernel(1000, 108_868, len(events) + 1, GEMM))  # compute under the all-to-alls
    t = 1000 + 113_030
    for name, total in (("void cuda::per_token_cast_to_fp8<__nv_bfloat16>(float*)", 7_297),
                        ("void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*)", 410)):  # fmt: skip
        for dur in _split(total, 4):
            events.append(kernel(t, dur, len(events) + 1, name))
            t += dur
    events.append(kernel(t, 128_000 - (t - 1000), len(events) + 1, GEMM))  # busy 128 ms in all
    props = [{"id": 0, "name": "NVIDIA H800", "computeMajor": 9, "computeMinor": 0}]
    with gzip.open(path, "wt") as f:
        json.dump({"schemaVersion": 1, "deviceProperties": props, "traceEvents": events}, f)
    return path
