from __future__ import annotations

import pytest

from rooftop.diagnose.engine import Evidence
from rooftop.diagnose.rules.live_kv_pressure import HIGH_USAGE, live_kv_pressure
from rooftop.hardware.catalog import get_roofs
from tests.diagnose.rules.live import live_evidence


def test_fires_at_high_usage_as_a_warning() -> None:
    # KV 95 % full (≥ 90 %), no preemption yet: a warning, not critical
    (f,) = live_kv_pressure(live_evidence(gauges={"kv_usage": 0.95, "requests_running": 12}))
    assert f.code == "live-kv-pressure" and f.severity == "warn" and f.bottleneck == "kv-capacity"
    assert f.evidence == {"kv_usage": 0.95, "preemptions": 0.0, "requests_running": 12}
    assert "95% full" in f.title and "0 preemptions" in f.title
    assert f.remedies  # the kv-capacity row of the remedies table


def test_preemptions_are_critical_even_at_low_usage() -> None:
    # 3 requests evicted and recomputed in the window: the cache was full at some instant
    (f,) = live_kv_pressure(live_evidence(gauges={"kv_usage": 0.40}, deltas={"preemptions": 3.0}))
    assert f.severity == "critical" and "3 preemptions" in f.title
    (g,) = live_kv_pressure(live_evidence(deltas={"preemptions": 1.0}))  # engine without a usage gauge
    assert "KV usage not exposed" in g.title and g.evidence["kv_usage"] is None


@pytest.mark.parametrize("usage", [0.0, 0.5, HIGH_USAGE - 0.01])
def test_quiet_below_threshold_without_preemption(usage: float) -> None:
    assert live_kv_pressure(live_evidence(gauges={"kv_usage": usage}, deltas={"preemptions": 0.0})) == []


def test_silent_without_live_evidence() -> None:
    assert live_kv_pressure(Evidence((), get_roofs("h100-sxm"))) == []
    assert live_kv_pressure(live_evidence()) == []  # neither usage nor preemptions exposed
