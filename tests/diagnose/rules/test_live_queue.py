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
    assert (
        f.title == "Scheduler/queue-bound: queue 60% of end-to-end latency over the 10 s window; 3 requests waiting now"
    )


def test_share_above_a_quarter_warns_even_with_an_empty_queue_now() -> None:
    # 0.3 s of 1.0 s = 30 % > 25 %, the queue drained by the time of the poll (waiting 0)
    (f,) = live_queue(live_evidence(gauges={"requests_waiting": 0.0}, latency=lat(0.3, 1.0)))
    assert f.severity == "warn" and f.evidence["queue_share"] == pytest.approx(0.3)


def test_waiting_requests_without_queue_histogram_warn() -> None:
    (f,) = live_queue(live_evidence(gauges={"requests_waiting": 5.0}))
    assert f.severity == "warn" and f.evidence["queue_share"] is None
    assert f.title == "Scheduler/queue-bound: 5 requests waiting now, queue time not exposed"
    (one,) = live_queue(live_evidence(gauges={"requests_waiting": 1.0}))
    assert one.title == "Scheduler/queue-bound: 1 request waiting now, queue time not exposed"


def test_a_lifetime_share_on_an_idle_engine_says_the_queue_is_empty_now() -> None:
    # TGI's /metrics (tests/data/serving/tgi_datadog_payload_excerpt.prom) read once: lifetime means
    # 295.276 s / 109 = 2.709 s queued of 541.214 s / 109 = 4.965 s end to end, 2.709 / 4.965 = 55 % > 50 %:
    # critical, while tgi_queue_size is 0 at the scrape. The title said "0 requests waiting" before.
    ev = live_evidence(gauges={"requests_waiting": 0.0}, latency=lat(2.709, 4.965), interval_s=0.0)
    (f,) = live_queue(ev)
    assert f.severity == "critical" and f.evidence["queue_share"] == pytest.approx(0.5456, abs=1e-4)
    assert (
        f.title == "Scheduler/queue-bound: queue 55% of end-to-end latency since the engine started; none waiting now"
    )


def test_quiet_when_queue_is_small() -> None:
    # 0.2 s of 1.0 s = 20 % ≤ 25 % and nobody waiting
    assert live_queue(live_evidence(gauges={"requests_waiting": 0.0}, latency=lat(0.2, 1.0))) == []
    # a fractional gauge (0.5 averaged waiting) with a 10 % share is below both bars, and without a share too
    assert live_queue(live_evidence(gauges={"requests_waiting": 0.5}, latency=lat(0.1, 1.0))) == []
    assert live_queue(live_evidence(gauges={"requests_waiting": 0.5})) == []
    # exactly a quarter is not "above a quarter"
    assert live_queue(live_evidence(gauges={"requests_waiting": 0.0}, latency=lat(0.25, 1.0))) == []


def test_silent_without_live_evidence() -> None:
    assert live_queue(Evidence((), get_roofs("h100-sxm"))) == []
    assert live_queue(live_evidence()) == []
