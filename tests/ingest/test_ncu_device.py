"""The GPU an ncu export names becomes the result's device; ncu's text and per-block metrics are not parse failures."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from rich.console import Console

from rooftop.api.ingest import import_path
from rooftop.hardware.catalog import get_roofs
from rooftop.ingest.ncu import launch_points, read_metrics, read_ncu
from rooftop.report.imported import render_import

# Cells of a real `ncu --csv --page raw` export: meinie0826/Roofline-Analysis@3fe410d8fa739523bcd63f443e3d0128fd1c4afc,
# decodebench/results/ncu/flashinfer_paged_decode__gqa_bf16_b1_ctx4k_p64.ncu.csv (ncu 2025, NVIDIA B200, CC 10.0).
# That repository states no licence, so the file is not vendored: these are 21 of its 475 columns, quoted cell
# for cell from its header, its units row and its first two launches (its two ==PROF== lines first).
PROF = ["==PROF== Connected to process 250292 (/usr/bin/python3.12)", "==PROF== Disconnected from process 250292"]
HEADER = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
          "Grid Size", "Device", "CC", "device__attribute_display_name",
          "device__attribute_confidential_computing_mode", "gpu__time_duration.sum", "launch__execution_model",
          "launch__func_cache_config", "launch__registers_per_thread", "launch__block_dim_x", "launch__sm_count",
          "profiler__replayer_passes", "launch__tpc_enabled"]  # fmt: skip
UNITS = ["", "", "", "", "", "", "", "", "", "", "", "", "", "ns", "", "", "register/thread", "block", "SM", "pass", ""]
LAUNCHES = [
    ["0", "250292", "python3.12", "127.0.0.1", "void PersistentVariableLengthMergeStatesKernel<8, 16, 8, 4, "
     "__nv_bfloat16, __nv_bfloat16, int>(T5 *, float *, T7 *, T6 *, float *, unsigned int, unsigned int *, "
     "unsigned int)", "1", "7", "(16, 8, 1)", "(148, 1, 1)", "0", "10.0", "NVIDIA B200", "No-CC", "9920", "SIMT",
     "CachePreferNone", "40", "16", "148", "11", "all"],
    ["1", "250292", "python3.12", "127.0.0.1", "void BatchDecodeWithPagedKVCacheKernel<0, 2, 1, 8, 16, 4, 2, "
     "DefaultAttention<0, 0, 0, 0>, Params>(T9)", "1", "7", "(16, 4, 2)", "(32, 8, 1)", "0", "10.0", "NVIDIA B200",
     "No-CC", "23872", "SIMT", "CachePreferNone", "56", "16", "148", "11", "all"],
]  # fmt: skip


def _export(tmp_path: Path) -> Path:
    text = io.StringIO()
    csv.writer(text, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows([HEADER, UNITS, *LAUNCHES])
    path = tmp_path / "b200.ncu.csv"
    path.write_text("\n".join(PROF) + "\n" + text.getvalue(), encoding="utf-8")
    return path


def test_device_name_is_kept_as_text_and_other_text_is_no_failure(tmp_path: Path) -> None:
    data = read_ncu(_export(tmp_path))
    # Before: 7 reasons per launch here (26 over the whole file): 'NVIDIA B200', 'No-CC', 'SIMT', 'CachePreferNone'
    # and 'all' "could not convert", units 'register/thread', 'block', 'SM', 'pass' unknown.
    assert data.skipped == {}
    assert [launch.info["device_name"] for launch in data.launches] == ["NVIDIA B200", "NVIDIA B200"]
    (first,) = launch_points(data.launches[0], "b200")
    assert first.time_s == pytest.approx(9_920e-9) and first.provenance["device_name"] == "NVIDIA B200"
    # text, and a unit rooftop has no factor for, of metrics no roofline reads: left out, silently
    assert not {"launch__execution_model", "launch__registers_per_thread"} & set(data.launches[0].metrics)
    assert "gpu__time_duration.sum" in read_metrics() and "launch__sm_count" not in read_metrics()


def test_a_bad_cell_of_a_metric_rooftop_reads_is_still_reported(tmp_path: Path) -> None:
    path = _export(tmp_path)
    path.write_text(path.read_text().replace('"9920"', '"SIMT"'))  # the duration cell of launch 0 made text
    assert read_ncu(path).skipped == {"gpu__time_duration.sum: could not convert string to float: 'SIMT'": 1}


def test_roofs_line_names_the_catalog_device(tmp_path: Path) -> None:
    run = import_path(_export(tmp_path))
    (result,) = run.results
    assert (result.workload["device"], result.workload["vendor"]) == ("NVIDIA B200", "NVIDIA")
    assert run.roofs.name == "NVIDIA B200"  # like a trace's GPU name; before: "unknown"
    out = io.StringIO()
    render_import(run, Console(file=out, width=200, color_system=None))
    assert out.getvalue().splitlines()[0] == "roofs: none for NVIDIA B200; pass -H b200"
    assert " · NVIDIA B200" in out.getvalue()  # the result's heading


def test_hardware_of_another_model_or_vendor_warns(tmp_path: Path) -> None:
    path = _export(tmp_path)

    def mismatch(hardware: str) -> list[str]:
        (result,) = import_path(path, get_roofs(hardware)).results
        return [f.title for f in result.findings if f.code == "hardware-mismatch"]

    assert mismatch("b200") == []
    assert mismatch("h100-sxm") == [
        "this ncu export ran on NVIDIA B200 but the roofs are h100-sxm (H100 SXM5 80GB): pass -H b200"
    ]
    (amd,) = mismatch("mi300x")
    assert amd.startswith("this ncu export ran on an NVIDIA GPU (NVIDIA B200) but the roofs are AMD mi300x")
