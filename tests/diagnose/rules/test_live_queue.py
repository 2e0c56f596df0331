from __future__ import annotations

import pytest

from rooftop.diagnose.engine import Evidence
from rooftop.diagnose.rules.live_queue import live_queue
from rooftop.hardware.catalog import get_roofs
from tests.diagnose.rules.live import live_evidence


def lat(queue_s: float, e2e_s: float) -> dict[str, dict[str, float]]:
    return {"queue_s": {"mean": queue_s}, "e2e_s": {"mean": e2e_s}}


def test_queue_over_half_of_latency_is_critical() -> None:
    # mean queue 0.6 s of a 1.0 s mean E2E: share 0.6 > 0.5 → critical (seed 003 §12.4)
    ev = live_evidence(gauges={"requests_waiting": 3.0, "requests_running": 4.0}, latency=lat(0.6, 1.0))
    (f,) = live_queue(ev)
    assert f.code == "live-queue-bound" and f.severity == "critical" and f.bottleneck == "scheduler"
    assert f.evidence["queue_share"] == pytest.approx(0.6)
    assert "3 requests waiting" in f.title and "queue 60% of end-to-end latency" in f.title


def test_share_above_a_quarter_warns_even_with_an_empty_queue_now() -> None:
    # 0.3 s of 1.0 s = 30 % > 25 %, the queue drained by the time of the poll (waiting 0)
    (f,) = live_queue(live_evidence(gauges={"requests_waiting": 0.0}, latency=lat(0.3, 1.0)))
    assert f.severity == "warn" and f.evidence["queue_share"] == pytest.approx(0.3)


def test_waiting_requests_without_queue_histogram_warn() -> None:
    (f,) = live_queue(live_evidence(gauges={"requests_waiting": 5.0}))
    assert f.severity == "warn" and "queue time not exposed" in f.title and f.evidence["queue_share"] is None


def test_quiet_when_queue_is_small() -> None:
    # 0.2 s of 1.0 s = 20 % ≤ 25 % and nobody waiting
    assert live_queue(live_evidence(gauges={"requests_waiting": 0.0}, latency=lat(0.2, 1.0))) == []
    # a fractional gauge (0.5 averaged waiting) with a 10 % share is below both bars
    assert live_queue(live_evidence(gauges={"requests_waiting": 0.5}, latency=lat(0.1, 1.0))) == []
    # exactly a quarter is not "above a quarter"
    assert live_queue(live_evidence(gauges={"requests_waiting": 0.0}, latency=lat(0.25, 1.0))) == []


def test_silent_without_live_evidence() -> None:
    assert live_queue(Evidence((), get_roofs("h100-sxm"))) == []
    assert live_queue(live_evidence()) == []
