"""An ncu export without DRAM or FLOP counters says so (tests/data/ncu-csv-superbench/README.md)."""

from __future__ import annotations

import pytest

from rooftop.api.ingest import import_path
from rooftop.diagnose.rules.import_missing_counters import import_missing_counters
from rooftop.hardware.catalog import get_roofs
from rooftop.ingest.ncu import missing_counters, read_ncu
from tests.conftest import data_path


def test_default_sections_export_lacks_both_groups() -> None:
    # superbench's B200 log: ncu's default sections (SpeedOfLight %, LaunchStats, Occupancy), no
    # counters. Before: one silent point, 406.24 µs, 0 bytes at level hbm, 0 FLOPs, no finding.
    run = import_path(data_path("ncu-csv-superbench", "cublaslt_ncu.log"), get_roofs("h100-sxm"))
    (result,) = run.results
    (point,) = result.points
    assert point.time_s == pytest.approx(406_240e-9) and (point.bytes, point.flops) == (0.0, 0.0)
    (finding,) = [f for f in result.findings if f.code == "ncu-counters-missing"]
    assert set(finding.evidence["missing_counters"]) == {"DRAM byte counters", "FLOP counters"}
    assert "0 bytes and 0 FLOPs" in finding.title
    assert "dram__bytes_read.sum,dram__bytes_write.sum" in finding.title


def test_dram_without_flops_and_complete_exports() -> None:
    # Olajide's saxpy export has DRAM bytes (177,852,672) but no FLOP counter: only FLOPs are named.
    saxpy = read_ncu(data_path("ncu-csv-olajide-gpu-roofline-profiler", "saxpy.csv"))
    assert list(missing_counters(saxpy)) == ["FLOP counters"]
    # llm-perf-opt's metrics files carry DRAM bytes and the SASS/tensor counters: nothing missing.
    full = read_ncu(data_path("ncu-csv-llm-perf-opt", "kernel_0001.ncu.metrics.csv"))
    assert missing_counters(full) == {}
    run = import_path(data_path("ncu-csv-llm-perf-opt", "kernel_0001.ncu.metrics.csv"))
    assert "ncu-counters-missing" not in {f.code for f in run.results[0].findings}
    assert import_missing_counters.__name__ == "import_missing_counters"
