"""The import facade: Runs with per-rank results, roofs, sections and skipped files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rooftop.api.ingest import import_path
from rooftop.core import artifact
from rooftop.core.points import Source
from rooftop.errors import TraceFormatError
from rooftop.hardware.catalog import get_roofs
from tests.conftest import data_path

TIMELINE_KEYS = {"kernels", "busy_s", "idle_s", "span_s", "largest_gap_s", "largest_gap_start_us", "nccl_kernels",
                 "nccl_s", "comm_compute_overlap_s", "unjoined_kernels"}  # fmt: skip


def test_trace_run_roundtrips_through_the_artifact() -> None:
    run = import_path(data_path("hta-traces", "a100x16_rank0.json.gz"), get_roofs("a100-80gb-sxm"))
    data = artifact.run_to_dict(run)
    (result,) = data["results"]
    assert TIMELINE_KEYS <= set(result["timeline"])
    assert result["workload"]["rank"] == 0 and result["workload"]["device"] == "NVIDIA A100-SXM4-80GB"
    assert {op["source"] for op in result["ops"]} == {"trace"}
    again = artifact.run_from_dict(data)
    assert again.results[0].extra["timeline"]["unjoined_kernels"] == 705


def test_folder_gives_one_result_per_rank(tmp_path: Path) -> None:
    for name in ("sampled_rank-0.json.gz", "a100x8_rank3_control.json.gz"):
        shutil.copy(data_path("hta-traces", name), tmp_path / name)
    (tmp_path / "notes.txt").write_text("not a trace")
    (tmp_path / "broken.json.gz").write_bytes(data_path("hta-traces", "nccl_data.json.gz").read_bytes()[:5000])
    run = import_path(tmp_path)
    assert sorted(r.workload["rank"] for r in run.results) == [0, 3]
    assert set(run.identity["skipped_files"]) == {"notes.txt", "broken.json.gz"}  # the other ranks are kept
    assert all(TIMELINE_KEYS <= set(r.extra["timeline"]) for r in run.results)


def test_ncu_folder_takes_theoretical_roofs_from_the_chart_section() -> None:
    run = import_path(data_path("ncu-csv-llm-perf-opt"))
    assert len(run.results) == 4  # the four metrics files; chart-only files give roofs, not results
    assert run.roofs.memory_roof("hbm").kind.value == "theoretical"
    points = [p for r in run.results for p in r.points]
    assert {p.source for p in points} == {Source.NCU} and {p.level for p in points} == {"hbm"}
    gemv = next(r for r in run.results if "kernel_0001" in r.workload["file"])
    assert "below-roof" in {f.code for f in gemv.findings}  # ~20 % of the DRAM roof (ncu: 19.66 %)


def test_single_ncu_file_finds_its_sibling_section() -> None:
    run = import_path(data_path("ncu-csv-llm-perf-opt", "kernel_0009.ncu.metrics.csv"))
    assert run.roofs.bandwidth("hbm") == pytest.approx(128 * 13.78e9)


def test_nsys_breakdown() -> None:
    run = import_path(data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv"))
    (result,) = run.results
    assert result.extra["breakdown"]["groups"]["gemm"]["share"] > 0.49  # gemv + gemm group
    assert run.roofs.compute == ()  # no --hardware: points are timed, not placed under roofs


def test_missing_path() -> None:
    with pytest.raises(TraceFormatError, match="no such file"):
        import_path("/nonexistent/trace.json")


def test_skip_reasons_are_whole() -> None:
    # tests/data/ncu-csv-superbench holds the ncu log, its README and LICENSE: the two text files
    # are skipped with detect's full reason (165 characters), which was cut at 80 before.
    run = import_path(data_path("ncu-csv-superbench"))
    reason = run.identity["skipped_files"]["LICENSE"]
    assert reason.endswith("or nsys report (nsys stats --report cuda_gpu_trace|cuda_gpu_kern_sum --format csv)")
    assert len(reason) > 80 and set(run.identity["skipped_files"]) == {"LICENSE", "README.md"}


def test_roofline_section_alone_says_why() -> None:
    # a real SpeedOfLight_RooflineChart export holds peaks, not launches: the error said "nothing to import ()"
    with pytest.raises(TraceFormatError, match=r"nothing to import \(roofs only: an ncu roofline section"):
        import_path(data_path("ncu-csv-llm-perf-opt", "kernel_0005.ncu.section_SpeedOfLight_RooflineChart.csv"))


SECTION = "kernel_0005.ncu.section_SpeedOfLight_RooflineChart.csv"
UNTIMED = (
    "3 kernel launch(es), none with a duration: collect gpu__time_duration.sum "
    "(or sm__cycles_elapsed.avg and sm__cycles_elapsed.avg.per_second) with ncu --metrics"
)


def _untimed(bert: Path, to: Path) -> Path:
    """The real export without its sm__cycles_elapsed rows: 3 launches and no way to time them."""
    to.write_text("".join(line for line in bert.read_text().splitlines(True) if '"sm__cycles_elapsed.avg' not in line))
    return to


def test_folder_lists_every_file_it_did_not_import(tmp_path: Path) -> None:
    # Before: an ncu file whose launches gave no point was dropped from a folder without a word.
    bert = data_path("ncu-csv-leleucas", "bert_flashattn_nsight.launches_5_7_9.csv")
    shutil.copy(bert, tmp_path / "bert.csv")
    _untimed(bert, tmp_path / "untimed.csv")
    shutil.copy(data_path("ncu-csv-llm-perf-opt", SECTION), tmp_path / SECTION)
    run = import_path(tmp_path)
    assert [Path(r.workload["file"]).name for r in run.results] == ["bert.csv"]  # 3 launches timed from cycles
    assert len(run.results[0].points) == 9  # 3 launches x (hbm, l2, l1)
    assert run.identity["skipped_files"] == {
        SECTION: "roofs only: an ncu roofline section, no kernel launch (its roofs serve the metrics files beside it)",
        "untimed.csv": UNTIMED,
    }
    assert run.roofs.bandwidth("hbm") == pytest.approx(128 * 13.78e9)  # the section's roofs are still used


def test_single_untimed_file_says_why(tmp_path: Path) -> None:
    path = _untimed(data_path("ncu-csv-leleucas", "bert_flashattn_nsight.launches_5_7_9.csv"), tmp_path / "u.csv")
    with pytest.raises(TraceFormatError) as err:
        import_path(path)
    assert str(err.value) == f"{path}: nothing to import ({UNTIMED})"


def test_folder_gives_a_profiler_s_own_reason(tmp_path: Path) -> None:
    for name in ("bert_flashattn_nsight.launches_5_7_9.csv", "adaptive_avg_pool2d_nsight.nokernels.csv"):
        shutil.copy(data_path("ncu-csv-leleucas", name), tmp_path / name)
    run = import_path(tmp_path)
    assert run.identity["skipped_files"] == {
        "adaptive_avg_pool2d_nsight.nokernels.csv": 'Nsight Compute profiled no kernel: "==ERROR== The application '
        'returned an error code (2). ==WARNING== No kernels were profiled."'
    }
