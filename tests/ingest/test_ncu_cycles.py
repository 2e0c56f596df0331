"""ncu launches without gpu__time_duration: timed as elapsed cycles / cycles per second; ncu's frequency units."""

from __future__ import annotations

import pytest

from rooftop.ingest.mapping import load
from rooftop.ingest.ncu import launch_points, launch_time, read_ncu, value
from tests.conftest import data_path

CYCLES = "sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second"

# tests/data/ncu-csv-leleucas/bert_flashattn_nsight.launches_5_7_9.csv (ncu of CUDA 11.4, A100): --metrics
# without gpu__time_duration. launch: (cycles, cycles per second, DRAM bytes, FLOPs, dtype). Before: exit 2,
# "an ncu roofline section alone gives roofs" (single file) or silently dropped (folder).
BERT = {
    # 49,152 FFMA x 2 + 49,152 FMUL = 147,456 fp32 and 49,152 HADD fp16: 196,608
    "5": (7_219.93, 932_325_145.39, 415_488, 196_608, "fp32"),
    # 131,072 FADD + 69,632 FFMA x 2 + 32,768 FMUL = 303,104 fp32 and 4,096 DMUL: 307,200
    "7": (7_355.74, 945_954_313.37, 61_824, 307_200, "fp32"),
    # 51,200 FADD + 10,240 FMUL = 61,440 fp32; 61,440 HADD + 30,720 HFMA x 2 = 122,880 fp16: 184,320
    "9": (5_005, 845_439_189.19, 82_432, 184_320, "fp16"),
}


def test_duration_from_cycles_when_gpu_time_is_absent() -> None:
    data = read_ncu(data_path("ncu-csv-leleucas", "bert_flashattn_nsight.launches_5_7_9.csv"))
    assert [launch.id for launch in data.launches] == ["5", "7", "9"]
    for launch in data.launches:
        cycles, per_s, dram, flops, dtype = BERT[launch.id]
        points = {p.level: p for p in launch_points(launch, "bert")}
        assert set(points) == {"hbm", "l2", "l1"}
        hbm = points["hbm"]
        # 7,219.93 / 932,325,145.39 = 7.744 µs; 7,355.74 / 945,954,313.37 = 7.776 µs; 5,005 / 845,439,189.19 = 5.920 µs
        assert hbm.time_s == pytest.approx(cycles / per_s) and hbm.provenance["duration"] == CYCLES
        assert (hbm.bytes, hbm.flops, hbm.dtype) == (dram, flops, dtype)
    times_us = [round(launch_points(launch, "bert")[0].time_s * 1e6, 3) for launch in data.launches]
    assert times_us == [7.744, 7.776, 5.92]
    # 'cudaFuncCachePreferNone', 'register/thread', 'byte/block', 'block' rows: no failure (9 reasons x 10 before)
    assert data.skipped == {}


def test_derived_duration_agrees_with_the_measured_one() -> None:
    # ncu 2022 (tests/data/ncu-csv-leleucas/dropout_nsight162.launches_0_1.csv) wrote both: the derivation
    # is checked on real data. 12,288.78 / 1,046,387,753.56 = 11,744.0 ns, measured 11,744 ns;
    # 7,551.94 / 1,026,079,408.21 = 7,360.0 ns, measured 7,360 ns.
    data = read_ncu(data_path("ncu-csv-leleucas", "dropout_nsight162.launches_0_1.csv"))
    for launch, measured_ns in zip(data.launches, (11_744, 7_360), strict=True):
        assert launch_time(launch.metrics) == (pytest.approx(measured_ns * 1e-9), "gpu__time_duration.sum")
        without = {k: v for k, v in launch.metrics.items() if not k.startswith("gpu__time_duration")}
        derived, how = launch_time(without) or (0.0, "")
        assert how == CYCLES and derived == pytest.approx(measured_ns * 1e-9, rel=1e-6)


def test_no_duration_and_no_rate_is_untimed() -> None:
    assert launch_time({"sm__cycles_elapsed.avg": 5_005.0}) is None
    assert launch_time({"sm__cycles_elapsed.avg": 5_005.0, "sm__cycles_elapsed.avg.per_second": 0.0}) is None


def test_frequency_units() -> None:
    units = load("ncu_v1")["units"]
    # ncu 2020-2022 write cycle/second (XPlacer's V100 logs, leleucas' A100 CSVs); later ncu auto-scale
    assert value("963,802,083.33", "cycle/second", units) == pytest.approx(963_802_083.33)
    assert value("1.41", "cycle/nsecond", units) == pytest.approx(1.41e9)
    assert value("1,410", "cycle/usecond", units) == pytest.approx(1.41e9)
    assert value("1,410,000", "cycle/msecond", units) == pytest.approx(1.41e9)


def test_ncu_2020_log_reads_its_clocks() -> None:
    # tests/data/ncu-csv-xplacer: nv-nsight-cu-cli 2020 on a V100, program output and ==PROF== lines first.
    # Its "SM Frequency" / "Memory Frequency" rows are in cycle/second: "unknown unit" x 13 each before.
    data = read_ncu(data_path("ncu-csv-xplacer", "nsight_bfs_graph4096.launches_0_1.log"))
    first = data.launches[0]
    assert first.kernel == "Kernel2(bool*,bool*,bool*,bool*,int)"
    assert first.metrics["SM Frequency"] == pytest.approx(963_802_083.33)
    assert first.metrics["Memory Frequency"] == 645_000_000
    assert launch_time(first.metrics) == (pytest.approx(3_200e-9), "Duration")  # "Duration","nsecond","3200"
    # and its 'register/thread', 'byte/block', 'block', 'warp/cycle' rows (metrics no roofline reads) are no
    # parse failures: 10 reasons x 13 launches before
    assert data.skipped == {}
