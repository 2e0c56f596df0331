"""Nsight Compute exports written under a European locale: '117.344' ns is 117,344 ns, '65,77' % is 65.77 %."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftop.ingest.ncu import launch_points, missing_counters, read_ncu
from rooftop.ingest.ncu_numbers import DECIMAL_COMMA, EN_US, detect, vote

# The rows below are quoted verbatim from a public vitest fixture (its NCU_CSV_FIXTURE string: ncu 2025.1
# on a Windows machine with a Spanish locale, CC 8.9, an RTX 40xx) that a sweep of real Nsight files found
# through a code search which did not name its repository. Its licence is therefore unknown: the file is
# not vendored, only these lines are quoted. Before the fix rooftop read 117 ns and dropped the bytes
# ("could not convert string to float: '27.595.520'"), then said the export had no DRAM counters.
HEADER = (
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
    '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
)
IDENTITY = {
    "0": '"0","143016","python.exe","127.0.0.1","ampere_sgemm_128x64_nn","1","7","(512, 1, 1)","(128, 1, 1)","0","8.9"',
    "1": '"1","143016","python.exe","127.0.0.1","ampere_sgemm_128x64_nn","1","7","(512, 1, 1)","(128, 1, 1)","0","8.9"',
    "2": '"2","143016","python.exe","127.0.0.1","void at::reduce_kernel<512, 1>","1","7","(512, 1, 1)","(1, 123, 1)",'
    '"0","8.9"',
}
METRICS = {  # launch -> (metric, unit, value) rows, in the fixture's order
    "0": [("gpu__time_duration.sum", "ns", "117.344"), ("dram__bytes.sum", "byte", "27.595.520"),
          ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "65,77"),
          ("launch__occupancy_limit_blocks", "block", "24"), ("launch__block_size", "", "128"),
          ("launch__grid_size", "", "512")],
    "1": [("gpu__time_duration.sum", "ns", "120.416"), ("dram__bytes.sum", "byte", "30.818.944"),
          ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "65,63"),
          ("launch__occupancy_limit_blocks", "block", "24"), ("launch__block_size", "", "128"),
          ("launch__grid_size", "", "512")],
    "2": [("gpu__time_duration.sum", "ns", "14.912"), ("dram__bytes.sum", "byte", "2.348.544"),
          ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "6,70"),
          ("launch__occupancy_limit_blocks", "block", "24"), ("launch__grid_size", "", "123"),
          ("launch__block_size", "", "512")],
}  # fmt: skip
SECTION = '"Command line profiler metrics"'


def _fixture(tmp_path: Path) -> Path:
    lines = ["==PROF== Connected to Process 143016", HEADER]
    for launch, rows in METRICS.items():
        lines += [f'{IDENTITY[launch]},{SECTION},"{m}","{u}","{v}"' for m, u, v in rows]
    lines.append("==PROF== Disconnected from Process 143016")
    path = tmp_path / "locale_es_details.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# launch -> (ns, DRAM bytes, GB/s): 27,595,520 B / 117,344 ns = 235.17 GB/s; 30,818,944 / 120,416 = 255.94;
# 2,348,544 / 14,912 = 157.49 (bytes per ns are GB/s)
EXPECTED = {"0": (117_344, 27_595_520, 235.17), "1": (120_416, 30_818_944, 255.94), "2": (14_912, 2_348_544, 157.49)}


def test_decimal_comma_export_reads_every_launch(tmp_path: Path) -> None:
    data = read_ncu(_fixture(tmp_path))
    assert data.numbers == DECIMAL_COMMA  # "27.595.520" (two dots) and "65,77" (a comma before 2 digits)
    assert [launch.id for launch in data.launches] == ["0", "1", "2"]
    for launch in data.launches:
        ns, dram, gbs = EXPECTED[launch.id]
        (point,) = launch_points(launch, "locale_es_details.csv")
        assert point.time_s == pytest.approx(ns * 1e-9) and point.bytes == dram and point.level == "hbm"
        assert point.bytes_per_s / 1e9 == pytest.approx(gbs, abs=0.005)
    pct = [launch.metrics["sm__throughput.avg.pct_of_peak_sustained_elapsed"] for launch in data.launches]
    assert pct == pytest.approx([65.77, 65.63, 6.70])  # "65,77": the decimal comma
    assert list(missing_counters(data)) == ["FLOP counters"]  # the DRAM counters are read now
    assert not any("could not convert" in reason for reason in data.skipped)


def test_votes_of_single_values() -> None:
    assert vote("27.595.520") is DECIMAL_COMMA and vote("65,77") is DECIMAL_COMMA and vote("1.234,5") is DECIMAL_COMMA
    assert vote("53,261,312") is EN_US and vote("17.50") is EN_US and vote("999,845,384.51") is EN_US
    assert vote("117.344") is None and vote("1,234") is None and vote("n/a") is None and vote("(512, 1, 1)") is None


def test_undecided_files_keep_the_en_us_reading() -> None:
    # "117.344" and "1,234" fit both locales: with nothing else the file is read as before (en_US)
    assert detect(["117.344", "1,234", "n/a"]) is EN_US
    assert EN_US.parse("117.344") == 117.344 and EN_US.parse("1,234") == 1234
    assert DECIMAL_COMMA.parse("117.344") == 117_344 and DECIMAL_COMMA.parse("6,70") == 6.7
    assert detect(["27.595.520", "65,77", "17.50"]) is DECIMAL_COMMA  # the majority: 2 to 1
    assert DECIMAL_COMMA.parse("27\u202f595\u202f520") == 27_595_520  # fr_FR groups with a narrow no-break space
