"""Format detection by content; a profiler's output without data is refused in its own words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rooftop.errors import TraceFormatError
from rooftop.ingest.detect import KINETO, NCU, NSYS, detect
from rooftop.ingest.ncu import launch_points, read_ncu
from rooftop.ingest.tool_messages import LIMIT
from tests.conftest import data_path


def test_fixtures() -> None:
    assert detect(data_path("hta-traces", "triton_example.json.gz")) == KINETO
    assert detect(data_path("ncu-csv-olajide-gpu-roofline-profiler", "saxpy.csv")) == NCU  # after 8 stray lines
    assert detect(data_path("ncu-csv-llm-perf-opt", "kernel_0001.ncu.metrics.csv")) == NCU
    assert detect(data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv")) == NSYS


def test_unknown(tmp_path: Path) -> None:
    path = tmp_path / "peaks.csv"
    path.write_text("label,peak_flops\n")
    with pytest.raises(TraceFormatError, match="not a Kineto trace"):
        detect(path)


def test_unquoted_header_is_detected_and_read() -> None:
    # a real details export re-saved with minimal quoting: "ID,Process ID,...,Kernel Name,..." (before: refused,
    # while the reader, given it, read it). 505,984 B / 8,256 ns = 61.29 GB/s; 327,808 B / 9,984 ns = 32.83 GB/s
    path = data_path("ncu-csv-leleucas", "adaptive_avg_pool2d_nsight.unquoted.launches_0_1.csv")
    assert detect(path) == NCU
    data = read_ncu(path)
    hbm = [launch_points(launch, "pool")[0] for launch in data.launches]
    assert [(p.time_s, p.bytes) for p in hbm] == [
        (pytest.approx(8_256e-9), 505_984),
        (pytest.approx(9_984e-9), 327_808),
    ]
    assert [round(p.bytes_per_s / 1e9, 2) for p in hbm] == [61.29, 32.83]
    # FLOPs: 257,536 FADD + 512 FMUL = 258,048; 241,920 FADD + 1,120,000 FFMA x 2 = 2,481,920
    assert [p.flops for p in hbm] == [258_048, 2_481_920] and data.skipped == {}


def test_source_code_naming_the_header_is_not_ncu(tmp_path: Path) -> None:
    # lines of a real script (the sweep's hand check) that name '"ID"' and "Kernel Name": called ncu before, then
    # skipped with 'no Nsight Compute header'
    path = tmp_path / "check.py"
    path.write_text(
        "    i=[k for k,l in enumerate(lines) if l.startswith('\"ID\"') or l.startswith('ID,')][0]\n"
        '            c=dict(zip(h,r)); k=(c["ID"],c["Kernel Name"])\n'
    )
    with pytest.raises(TraceFormatError, match="not a Kineto trace"):
        detect(path)


def test_ncu_that_profiled_nothing_says_why_in_its_words() -> None:
    path = data_path("ncu-csv-leleucas", "adaptive_avg_pool2d_nsight.nokernels.csv")
    with pytest.raises(TraceFormatError) as err:
        detect(path)
    assert str(err.value) == (
        f'{path}: Nsight Compute profiled no kernel: "==ERROR== The application returned an error code (2). '
        '==WARNING== No kernels were profiled."'
    )


def test_a_long_ncu_account_is_cut_to_one_bounded_line() -> None:
    path = data_path("ncu-csv-swordfish", "8b-b1.ncu.csv")  # 5 ==ERROR== + 1 ==WARNING== lines: 510 characters
    with pytest.raises(TraceFormatError) as err:
        detect(path)
    why = str(err.value).removeprefix(f"{path}: Nsight Compute profiled no kernel: ")
    assert why.startswith('"==ERROR== An error was reported by the driver ==ERROR== Profiling failed because a driver')
    assert len(why) == LIMIT + 2 and why.endswith('…"') and "\n" not in why  # 240 characters and the quotes


def test_quoted_profiler_accounts(tmp_path: Path) -> None:
    # No licence on these two real files, so their lines are quoted here instead of vendored:
    # meinie0826/Roofline-Analysis@3fe410d8, decodebench/results/ncu/...b128_ctx8k_p64.ncu.csv (ncu, failed run)
    ncu = tmp_path / "error_only.ncu.csv"
    ncu.write_text(
        "==PROF== Connected to process 252579 (/usr/bin/python3.12)\n==PROF== Disconnected from process 252579\n"
        "==ERROR== The application returned an error code (1).\n"
    )
    with pytest.raises(
        TraceFormatError, match=r'profiled no kernel: "==ERROR== The application returned an error code \(1\)\."$'
    ):
        detect(ncu)
    # Zyyeric/mini-aegaeon@c6bbeb6d, kern_sum.csv: nsys 2025.1.1 `stats -r cuda_gpu_kern_sum` on a report without kernels
    nsys = tmp_path / "kern_sum.csv"
    nsys.write_text(
        "\nNOTICE: Existing SQLite export found: benchmark/results/nsys_qwen3_local.sqlite\n"
        "        It is assumed file was previously exported from: benchmark/results/nsys_qwen3_local.nsys-rep\n"
        "        Consider using --force-export=true if needed.\n\n"
        "Processing [benchmark/results/nsys_qwen3_local.sqlite] with [/lambda/nfs/serverlessOnSuperchip/nsight-systems/"
        "2025.1.1/host-linux-armv8/reports/cuda_gpu_kern_sum.py]... \n"
        "SKIPPED: benchmark/results/nsys_qwen3_local.sqlite does not contain CUDA kernel data.\n\n"
    )
    with pytest.raises(TraceFormatError) as err:
        detect(nsys)
    assert str(err.value) == (
        f'{nsys}: nsys stats wrote no summary: "SKIPPED: benchmark/results/nsys_qwen3_local.sqlite does not contain '
        'CUDA kernel data."'
    )


@pytest.mark.parametrize(
    ("name", "head", "said"),
    [  # the first bytes of a real .nsys-rep (ayush-os/nsight-systems-deep-dive, vector_add_N10.nsys-rep)
        ("run.nsys-rep", b"NVIDIA Tegra Profiler Report 1.\n\x0bLocal (CLI)\x12\x04", "an Nsight Systems report"),
        ("renamed.bin", b"NVIDIA Tegra Profiler Report 1.\n\x0bLocal (CLI)\x12\x04", "an Nsight Systems report"),
        ("report.sqlite", b"SQLite format 3\x00\x10\x00", "an SQLite database"),
        ("k.ncu-rep", b"\x08\x01\x12\x0bNVIDIA", "an Nsight Compute report"),  # ncu's own bytes: read by name
        ("934987a2fc2f.xplane.pb", b"\n\x9d\xb2\x08\x12\x0e/host:metadata", "a TensorFlow/JAX profile"),
    ],
)
def test_binary_reports_are_named_with_the_export_to_run(tmp_path: Path, name: str, head: bytes, said: str) -> None:
    path = tmp_path / name
    path.write_bytes(head + bytes(range(256)))
    with pytest.raises(TraceFormatError) as err:
        detect(path)
    text = str(err.value)
    assert text.startswith(f"{path}: {said}") and ", which rooftop does not read: " in text and "\n" not in text


def test_a_json_object_without_trace_events_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # TraceLens' rocprofv3 results (tests/rocprof/908_results.json.gz, 37 MB of JSON) read "no event ends
    # within 16 MiB of text": the reader was still looking for the events' key, not inside an event
    from rooftop.ingest import fastjson
    from rooftop.ingest.kineto import read_trace

    monkeypatch.setattr(fastjson, "MAX_PENDING_BYTES", 4096)
    path = tmp_path / "908_results.json"
    path.write_text('{"rocprofiler-sdk-tool": [{"metadata": ' + json.dumps({"x": list(range(3000))}) + "}]}")
    with pytest.raises(TraceFormatError) as err:
        read_trace(path)
    assert str(err.value) == (
        f"{path}: no 'traceEvents' key in the first 0 MiB (its first key is 'rocprofiler-sdk-tool'): "
        "not a Chrome trace (rooftop reads the PyTorch profiler's export_chrome_trace)"
    )
