"""Per-step breakdown, compared with HTA's get_temporal_breakdown (which drops the last step)."""

from __future__ import annotations

import pytest

from rooftop.ingest.steps import breakdown
from tests.ingest.conftest import hta

US = 1e-6


def test_sampled_matches_hta_exactly() -> None:
    # README (HTA 0.5.0, step #551 only): kernel_time 600,058, idle 321,378, compute 106,252, non_compute 172,428
    b = breakdown(*hta("sampled_rank-0.json.gz"))
    t = b["totals_without_last"]
    assert t["activities"] == 602  # HTA launch-stats rows
    assert t["span_s"] == pytest.approx(600_058 * US)
    assert t["idle_s"] == pytest.approx(321_378 * US)
    assert t["compute_s"] == pytest.approx(106_252 * US)
    assert t["non_compute_s"] == pytest.approx(172_428 * US)
    assert t["idle_s"] / t["span_s"] == pytest.approx(0.5356, abs=5e-5)


def test_last_step_is_kept_and_flagged() -> None:
    b = breakdown(*hta("sampled_rank-0.json.gz"))
    assert [s["step"] for s in b["steps"]] == ["ProfilerStep#551", "ProfilerStep#552"]
    assert [s["last"] for s in b["steps"]] == [False, True]
    assert b["steps"][1]["activities"] == 602  # #552 is reported, not dropped as HTA does


def test_a100x8_close_to_hta() -> None:
    # HTA (#1009-#1013): kernel_time 383,404, idle 62,119, compute 234,760, non_compute 86,525.
    # compute and non_compute match exactly. Our span (381,391) and idle (60,106) are 2,013 µs smaller:
    # we measure each step's span from the first to the last GPU activity whose launch lies in the
    # ProfilerStep; HTA assigns iterations through its own call-stack pass and its spans come out
    # wider. Neither launch-time nor GPU-time assignment reproduces HTA's spans (tried both), so the
    # span/idle gap is a definition difference we document, not a missing activity: every compute
    # and non-compute microsecond agrees. Tolerance 3.5 % on idle for that reason.
    t = breakdown(*hta("a100x8_rank3_control.json.gz"))["totals_without_last"]
    assert t["compute_s"] == pytest.approx(234_760 * US, abs=1 * US)
    assert t["non_compute_s"] == pytest.approx(86_525 * US, abs=1 * US)
    assert t["span_s"] == pytest.approx(383_404 * US, rel=0.006)
    assert t["idle_s"] == pytest.approx(62_119 * US, rel=0.035)


def test_nccl_data_close_to_hta() -> None:
    # HTA (#4-#5): kernel_time 435,586, idle 338,781, compute 75,169, non_compute 21,636, 2,516 rows.
    # The README's exact-float reimplementation gets compute 76,935.8: so do we (HTA floors ns
    # timestamps). Spans differ as for a100x8 (ours 429,302), hence idle 330,134 (2.6 % below HTA).
    t = breakdown(*hta("nccl_data.json.gz"))["totals_without_last"]
    assert t["activities"] == 2516
    assert t["compute_s"] == pytest.approx(76_935.8 * US, abs=0.1 * US)
    assert t["compute_s"] == pytest.approx(75_169 * US, rel=0.025)
    assert t["non_compute_s"] == pytest.approx(21_636 * US, rel=0.03)
    assert t["span_s"] == pytest.approx(435_586 * US, rel=0.015)
    assert t["idle_s"] == pytest.approx(338_781 * US, rel=0.03)


def test_trace_without_steps() -> None:
    assert breakdown(*hta("alexnet_a100.json.gz")) == {"steps": [], "totals_without_last": {}}
