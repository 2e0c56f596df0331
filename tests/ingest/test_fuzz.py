"""Fuzzed inputs: a typed one-line error or skipped-with-reason rows, never a traceback."""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rooftop.api.ingest import import_path
from rooftop.errors import TraceFormatError
from tests.conftest import data_path, run_cli
from tests.ingest.conftest import cpu_op, kernel, launch

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

junk = st.one_of(st.none(), st.booleans(), st.text(max_size=5), st.integers(-(2**40), 2**40),
                 st.floats(allow_nan=True, allow_infinity=True), st.lists(st.integers(), max_size=3),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))  # fmt: skip
number = st.one_of(st.integers(-1000, 10**6), st.floats(-1e3, 1e6, allow_nan=False))


@st.composite
def event(draw: Any) -> Any:
    base = draw(st.sampled_from(["kernel", "launch", "cpu", "mm", "step", "junk"]))
    ts, dur = draw(number), draw(st.one_of(number, st.just(0)))
    corr = draw(st.integers(-2, 6))
    if base == "kernel":
        ev = kernel(ts, dur, corr, name=draw(st.sampled_from(["ncclKernel_AllReduce", "sgemm", "k"])))
    elif base == "launch":
        ev = launch(ts, dur, corr, name=draw(st.sampled_from(["cudaLaunchKernel", "cudaGraphLaunch", "cuLaunchKernel",
                                                              "cudaDeviceSynchronize"])))  # fmt: skip
    elif base == "cpu":
        ev = cpu_op(ts, dur, "aten::relu")
    elif base == "mm":
        ev = cpu_op(ts, dur, "aten::mm", **{"Input Dims": draw(junk), "Input type": draw(junk)})
    elif base == "step":
        ev = cpu_op(ts, dur, f"ProfilerStep#{corr}")
    else:
        return draw(junk)
    for key in draw(st.lists(st.sampled_from(["ts", "dur", "name", "args", "cat", "ph", "pid", "tid"]), max_size=2)):
        if draw(st.booleans()):
            ev.pop(key, None)
        else:
            ev[key] = draw(junk)
    return ev


def _import(payload: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"t{suffix}"
        path.write_bytes(payload)
        try:
            run = import_path(path)
        except TraceFormatError as exc:
            assert "\n" not in str(exc)
            return
        for result in run.results:  # an accepted file has a full timeline and only typed skip reasons
            assert "timeline" not in result.extra or result.extra["timeline"]["kernels"] >= 0


@FUZZ
@given(st.lists(event(), max_size=25), st.booleans())
def test_fuzzed_events(events: list[Any], gz: bool) -> None:
    text = json.dumps({"traceEvents": [kernel(0, 1, 1), *events]}).encode()
    _import(gzip.compress(text) if gz else text, ".json.gz" if gz else ".json")


@FUZZ
@given(st.integers(0, 2000))
def test_truncated_gzip(cut: int) -> None:
    data = data_path("hta-traces", "mi250_minitoy_rocm.json.gz").read_bytes()
    _import(data[: min(cut, len(data) - 1)], ".json.gz")


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    _import(data, ".json")


HEADER = '"ID","Kernel Name","gpu__time_duration.sum","dram__bytes_read.sum"'


@FUZZ
@given(st.lists(st.lists(st.one_of(st.text(max_size=6), st.sampled_from(["n/a", "1,234", "", "usecond", "Mbyte"])),
                         min_size=0, max_size=6), max_size=6))  # fmt: skip
def test_fuzzed_ncu_csv(rows: list[list[str]]) -> None:
    lines = [HEADER] + [",".join(json.dumps(c) for c in row) for row in rows]
    _import("\n".join(lines).encode(), ".csv")


@FUZZ
@given(st.lists(st.lists(st.text(max_size=8), max_size=9), max_size=5))
def test_fuzzed_nsys_csv(rows: list[list[str]]) -> None:
    lines = ["Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"]
    lines += [",".join(json.dumps(c) for c in row) for row in rows]
    _import("\n".join(lines).encode(), ".csv")


def test_zero_duration_and_overlapping_kernels(tmp_path: Path) -> None:
    # zero-length kernels add no busy time; a kernel starting before the last ended (a "negative gap")
    # merges into it: busy = [0,10) ∪ [5,12) ∪ {20} = 12 µs over a span of 20 µs
    events = [kernel(0, 10, 1), kernel(5, 7, 2, stream=8), kernel(20, 0, 3)]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}))
    tl = import_path(path).results[0].extra["timeline"]
    assert tl["busy_s"] * 1e6 == 12 and tl["span_s"] * 1e6 == 20 and tl["largest_gap_s"] * 1e6 == 8


def test_cli_truncated_gzip_exits_2(tmp_path: Path) -> None:
    data = data_path("hta-traces", "nccl_data.json.gz").read_bytes()
    path = tmp_path / "cut.json.gz"
    path.write_bytes(data[: len(data) // 2])
    proc = run_cli("import", str(path))
    assert proc.returncode == 2
    assert proc.stderr.startswith("rooftop: error: ") and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr and "truncated or malformed" in proc.stderr


def test_cli_units_row_only_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "units.csv"
    path.write_text('"ID","Kernel Name","gpu__time_duration.sum"\n"","","usecond"\n')
    proc = run_cli("import", str(path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"rooftop: error: {path}: Nsight Compute raw page with a units row but no launches"
