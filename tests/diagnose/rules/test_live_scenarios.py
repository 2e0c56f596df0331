from __future__ import annotations

from typing import Any

from rooftop.diagnose.rules.live_scenarios import live_scenarios
from tests.diagnose.rules.live import live_evidence


def acc(mfu: dict[str, float], mbu: dict[str, float]) -> dict[str, Any]:
    return {"mfu": mfu, "mbu": mbu, "batch": 8.0, "mean_prompt_tokens": 512.0}


def codes(findings: list[Any]) -> list[str]:
    return [f.code for f in findings]


def test_scenario_a_decode_memory_bound() -> None:
    # decode MBU 80 % > 75 % with decode MFU 2 % < 5 %: weights streamed for a small batch
    ev = live_evidence(
        gauges={"requests_running": 8.0},
        accounting=acc({"decode": 0.02, "prefill": 0.10, "total": 0.03}, {"decode": 0.80, "total": 0.60}),
    )
    (f,) = live_scenarios(ev)
    assert f.code == "live-decode-memory-bound" and f.bottleneck == "weight-bandwidth"
    assert "MBU 80%" in f.title and "MFU 2.0%" in f.title
    assert f.evidence["batch"] == 8.0


def test_scenario_b_prefill_compute_bound() -> None:
    # prefill MFU 50 % > 45 %
    ev = live_evidence(accounting=acc({"prefill": 0.50, "decode": 0.01, "total": 0.3}, {"decode": 0.3, "total": 0.3}))
    (f,) = live_scenarios(ev)
    assert f.code == "live-prefill-compute-bound" and f.severity == "info" and "MFU 50%" in f.title


def test_scenarios_c_and_d_depend_on_tensor_parallelism() -> None:
    # MFU 3 % and MBU 5 %, both < 10 %, while 4 requests run: the device waits
    low = acc({"prefill": 0.0, "decode": 0.03, "total": 0.03}, {"decode": 0.05, "total": 0.05})
    (d,) = live_scenarios(live_evidence(gauges={"requests_running": 4.0}, accounting=low, tp=1))
    assert d.code == "live-underutilised" and d.bottleneck == "launch" and d.title.startswith("Scenario D")
    (c,) = live_scenarios(live_evidence(gauges={"requests_running": 4.0}, accounting=low, tp=2))
    assert c.bottleneck == "communication" and c.title.startswith("Scenario C")


def test_quiet_at_the_edges_and_when_idle() -> None:
    # MBU 75 % is not > 75 %; prefill MFU 45 % is not > 45 %; totals 20 % are not low
    edge = acc({"prefill": 0.45, "decode": 0.01, "total": 0.2}, {"decode": 0.75, "total": 0.2})
    assert live_scenarios(live_evidence(gauges={"requests_running": 4.0}, accounting=edge)) == []
    # low utilisation but nothing running: an idle engine, not a waiting device
    idle = acc({"prefill": 0.0, "decode": 0.0, "total": 0.0}, {"decode": 0.0, "total": 0.0})
    assert live_scenarios(live_evidence(gauges={"requests_running": 0.0}, accounting=idle)) == []
    # without accounting (no --model) there is nothing to say
    assert live_scenarios(live_evidence(gauges={"requests_running": 4.0})) == []


def test_a_and_b_together() -> None:
    both = acc({"prefill": 0.6, "decode": 0.01, "total": 0.3}, {"decode": 0.9, "total": 0.5})
    assert codes(live_scenarios(live_evidence(accounting=both))) == [
        "live-decode-memory-bound",
        "live-prefill-compute-bound",
    ]
