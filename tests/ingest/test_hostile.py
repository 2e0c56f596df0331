"""Issue 11: hostile traces and CSVs end in one TraceFormatError line or a counted skip, never a traceback."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rooftop.api.ingest import import_path
from rooftop.core.artifact import Result
from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.errors import TraceFormatError
from rooftop.ingest.builder import MALFORMED_SHAPE
from rooftop.ingest.kineto import read_trace
from rooftop.ingest.ncu import read_ncu
from rooftop.ingest.nsys import read_nsys
from rooftop.report.imported import points_table
from tests.conftest import data_path, run_cli
from tests.ingest.conftest import cpu_op, kernel, launch


def _mm_trace(path: Path, dims: Any, types: Any) -> Path:
    events = [kernel(0, 10, 1, name="sgemm"), launch(0, 1, 1, ext=5), cpu_op(0, 5, "aten::mm", ext=5)]
    events[2]["args"].update({"Input Dims": dims, "Input type": types})
    path.write_text(json.dumps({"traceEvents": events}))
    return path


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize(
    ("dims", "types"),
    [
        ([[2, 3], [3, 4]], [["float"], "float"]),  # "unhashable type: 'list'" before
        ([[int("9" * 400), 3], [3, 4]], ["float", "float"]),  # OverflowError before
        ([[2, -3], [3, 4]], ["float", "float"]),  # a negative size
    ],
)
def test_malformed_shapes_are_a_counted_skip(tmp_path: Path, fast: bool, dims: Any, types: Any) -> None:
    path = _mm_trace(tmp_path / "t.json", dims, types)
    if not fast and dims[0][0] > 2**64:  # the ijson reader refuses the whole file, in one line
        with pytest.raises(TraceFormatError, match="integer overflow"):
            read_trace(path, fast=fast)
        return
    trace = read_trace(path, fast=fast)
    assert trace.skipped == {MALFORMED_SHAPE: 1}
    run = import_path(tmp_path / "t.json")
    (point,) = run.results[0].points
    assert point.flops == 0 and point.time_s == pytest.approx(10e-6)  # the kernel is kept, timed, not costed


def test_dur_1e400_is_a_one_line_error_not_inf(tmp_path: Path) -> None:
    # "idle nan % of the inf s span" once: a JSON decoder that reads 1e400 as inf. msgspec refuses the
    # number, the file goes to ijson, which names it; no profiler writes a number beyond a double.
    text = json.dumps({"traceEvents": [kernel(0, 10, 1), kernel(20, 5, 2)]}).replace('"dur": 5', '"dur": 1e400')
    (tmp_path / "t.json").write_text(text)
    for fast in (True, False):
        with pytest.raises(TraceFormatError, match="after 1 events: .*numeric .floating point. overflow$"):
            read_trace(tmp_path / "t.json", fast=fast)
    proc = run_cli("import", str(tmp_path / "t.json"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "overflow" in proc.stderr


@pytest.mark.parametrize("key", ["ts", "dur"])
def test_an_integer_beyond_a_double_skips_its_event(tmp_path: Path, key: str) -> None:
    # 1 followed by 400 zeros is a valid JSON integer; numpy cannot make it a float (a fuzzed crash)
    events = [kernel(0, 10, 1), {**kernel(20, 5, 2), key: 7}]
    text = json.dumps({"traceEvents": events}).replace(f'"{key}": 7', f'"{key}": 1{"0" * 400}')
    (tmp_path / "t.json").write_text(text)
    trace = read_trace(tmp_path / "t.json")
    assert trace.skipped == {"kernel event with an out-of-range ts/dur": 1} and trace.gpu.ts_us.tolist() == [0.0]
    with pytest.raises(TraceFormatError, match="integer overflow$"):  # yajl refuses the file, in one line
        read_trace(tmp_path / "t.json", fast=False)


def test_a_copy_with_bytes_beyond_a_double_has_unknown_bytes(tmp_path: Path) -> None:
    copy = {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 20, "dur": 5,
            "args": {"bytes": 7, "correlation": 3}}  # fmt: skip
    text = json.dumps({"traceEvents": [kernel(0, 10, 1), copy]}).replace('"bytes": 7', f'"bytes": 1{"0" * 400}')
    (tmp_path / "t.json").write_text(text)
    trace = read_trace(tmp_path / "t.json")
    assert trace.gpu.ts_us.tolist() == [0.0, 20.0] and np.isnan(trace.gpu.bytes[1])  # read, bytes not recorded


@pytest.mark.parametrize(("nelems", "message_bytes"), [("7", 28.0), ("-5", 0.0), ("1" + "0" * 400, 0.0)])
def test_a_collective_message_size_out_of_range_counts_no_bytes(tmp_path: Path, nelems: str,
                                                                message_bytes: float) -> None:  # fmt: skip
    nccl = kernel(0, 10, 1, name="ncclDevKernel_AllReduce_Sum_f32_RING_LL", **{"In msg nelems": 1, "dtype": "Float"})
    text = json.dumps({"traceEvents": [nccl, kernel(20, 5, 2)]}).replace(
        '"In msg nelems": 1', f'"In msg nelems": {nelems}'
    )
    (tmp_path / "t.json").write_text(text)
    (entry,) = import_path(tmp_path / "t.json").results[0].extra["timeline"]["collectives"]
    assert entry["collective"] == "all_reduce" and entry["message_bytes"] == message_bytes  # 7 floats: 28 B


def test_a_device_name_that_is_not_a_string_is_no_name(tmp_path: Path) -> None:
    # str() of a 5,000-deep list recursed out in both readers (trace fuzz campaign, seed 7)
    deep = "[" * 5000 + "]" * 5000
    text = '{"deviceProperties": [{"name": ' + deep + '}], "traceEvents": [' + json.dumps(kernel(0, 1, 1)) + "]}"
    (tmp_path / "t.json").write_text(text)
    for fast in (True, False):
        assert read_trace(tmp_path / "t.json", fast=fast).device_name == ""
    proc = run_cli("import", str(tmp_path / "t.json"), "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["results"][0]["workload"]["device"] == ""


def test_input_dims_beyond_a_double_are_a_malformed_shape(tmp_path: Path) -> None:
    # msgspec refused the deferred `Input Dims` (ValidationError escaped; trace fuzz campaign, seed 1234)
    op = cpu_op(0, 10, "aten::mm", **{"Input Dims": [[4, 8], [8, 16]], "Input type": ["float", "float"]})
    text = json.dumps({"traceEvents": [op, kernel(1, 5, 1)]}).replace("[8, 16]", "[8, 1e400]")
    (tmp_path / "t.json").write_text(text)
    trace = read_trace(tmp_path / "t.json")
    assert trace.skipped == {MALFORMED_SHAPE: 1} and trace.cpu.shape_id.tolist() == [-1]
    with pytest.raises(TraceFormatError, match="numeric .floating point. overflow$"):  # yajl: the whole file
        read_trace(tmp_path / "t.json", fast=False)


def test_import_dev_null_is_one_line() -> None:
    with pytest.raises(TraceFormatError, match="not a regular file or a folder"):
        import_path("/dev/null")
    proc = run_cli("import", "/dev/null")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_csv_field_over_the_csv_limit(tmp_path: Path) -> None:
    nsys = data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv").read_text().splitlines()
    nsys[1] = nsys[1] + ',"' + "x" * 200_000 + '"'
    (tmp_path / "n.csv").write_text("\n".join(nsys))
    with pytest.raises(TraceFormatError, match=r"n.csv: malformed CSV at line 2: field larger than field limit"):
        read_nsys(tmp_path / "n.csv")
    ncu = data_path("ncu-csv-llm-perf-opt", "kernel_0001.ncu.metrics.csv").read_text().splitlines()
    ncu[7] = ncu[7] + '"' + "x" * 200_000 + '"'
    (tmp_path / "k.csv").write_text("\n".join(ncu))
    with pytest.raises(TraceFormatError, match=r"k.csv: malformed CSV at line \d+: field larger"):
        read_ncu(tmp_path / "k.csv")


def test_nsys_inf_nan_negative_cells_are_skipped(tmp_path: Path) -> None:
    lines = data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv").read_text().splitlines()
    lines[1] = lines[1].replace(",16448,", ",inf,")  # OverflowError before
    lines[2] = lines[2].replace(",26427871,", ",nan,")
    lines[3] = lines[3].replace(",10662464,", ",-5,")
    lines[4] = lines[4].replace(",6592,", ",2.5,")
    (tmp_path / "n.csv").write_text("\n".join(lines))
    rows, skipped = read_nsys(tmp_path / "n.csv")
    assert skipped == {
        "out-of-range instances (expected `int`, got `float`)": 2,
        "out-of-range total_s (expected `float` >= 0.0)": 2,  # NaN fails >= 0 like -5 does
    }
    assert len(rows) == len(lines) - 1 - 4 and all(r.total_s >= 0 and r.instances >= 0 for r in rows)


def test_ncu_negative_and_nonfinite_durations_are_skipped(tmp_path: Path) -> None:
    lines = data_path("ncu-csv-llm-perf-opt", "kernel_0001.ncu.metrics.csv").read_text().splitlines()
    row = next(i for i, line in enumerate(lines) if '"gpu__time_duration.sum","us","6.75"' in line)
    lines[row] = lines[row].replace('"us","6.75"', '"us","-20"')  # "-20 GB/s" before
    (tmp_path / "k.ncu.metrics.csv").write_text("\n".join(lines))
    data = read_ncu(tmp_path / "k.ncu.metrics.csv")
    assert data.skipped == {"gpu__time_duration.sum: '-20' is not a finite non-negative value": 1}
    for value in ("inf", "NaN", "1e400"):
        lines[row] = lines[row].replace('"us","-20"', f'"us","{value}"')
        (tmp_path / "k.ncu.metrics.csv").write_text("\n".join(lines))
        skipped = read_ncu(tmp_path / "k.ncu.metrics.csv").skipped
        assert list(skipped) == [f"gpu__time_duration.sum: {value!r} is not a finite non-negative value"]
        lines[row] = lines[row].replace(f'"us","{value}"', '"us","-20"')


def test_zero_time_points_share_is_blank_not_nan() -> None:
    point = RooflinePoint(label="k", op="k", phase=Phase.UNKNOWN, flops=0.0, bytes=0.0, time_s=0.0, dtype="",
                          source=Source.NCU, level="hbm")  # fmt: skip
    from rich.console import Console

    console = Console(width=120, record=True)
    console.print(points_table(Result(workload={}, points=(point,)), None))  # type: ignore[arg-type]
    assert "nan" not in console.export_text()


def test_gzip_bomb_with_one_huge_name_fails_fast(tmp_path: Path) -> None:
    # 1 GiB in the issue; 48 MiB here: a 48 KB gzip, refused after 16 MiB of text (no event ends there)
    head = b'{"traceEvents": [' + json.dumps(kernel(0, 1, 1)).encode() + b', {"ph":"X","cat":"kernel","name":"'
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    body = compressor.compress(head) + compressor.compress(b"a" * (48 << 20))
    body += compressor.compress(b'","ts":1,"dur":1}]}') + compressor.flush()
    (tmp_path / "b.json.gz").write_bytes(body)
    for fast in (True, False):  # ijson would build the string in quadratic time: both stop at 16 MiB
        with pytest.raises(TraceFormatError, match="16 MiB of text without a quote"):
            read_trace(tmp_path / "b.json.gz", fast=fast)
    # 88 MiB of instant events in a ~90 KB gzip: refused at 64 MiB + 64 x its size
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    body = compressor.compress(b'{"traceEvents": [') + compressor.compress(b'{"ph":"i"},' * (8 << 20))
    (tmp_path / "c.json.gz").write_bytes(body + compressor.compress(b'{"ph":"i"}]}') + compressor.flush())
    with pytest.raises(TraceFormatError, match=r"inflates past [\d,]+ bytes \(64x its size\)"):
        read_trace(tmp_path / "c.json.gz")


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_nesting_deeper_than_1000_levels(tmp_path: Path, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    deep = opener * 5000 + ("1" if opener != "[" else "") + closer * 5000
    small = '{"traceEvents": [' + json.dumps(kernel(0, 1, 1)) + "," + deep + "]}"
    (tmp_path / "s.json").write_text(small)
    assert read_trace(tmp_path / "s.json").gpu.ts_us.size == 1  # msgspec refuses the depth; ijson streams past it
    assert read_trace(tmp_path / "s.json", fast=False).gpu.ts_us.size == 1
    big = '{"traceEvents": [' + ",".join([json.dumps(kernel(0, 1, 1))] * 30000) + "," + deep + "]}"
    (tmp_path / "b.json").write_bytes(gzip.compress(big.encode()))
    assert read_trace(tmp_path / "b.json").gpu.ts_us.size == 30000  # chunked reader: RecursionError -> ijson
