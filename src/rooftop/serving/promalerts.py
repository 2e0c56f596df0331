"""Prometheus alerting rules for seed 001's scenarios, KV-cache pressure and queue growth.

The thresholds are those of rooftop's live findings (diagnose/rules/live_*.py): A decode MBU >
75 % with decode MFU < 5 %; B prefill MFU > 45 % while TTFT grows; C total MFU and MBU both
under 10 % while requests run (communication at tp > 1, launch bubbles otherwise); D the same
low utilisation with requests waiting; KV usage ≥ 90 % or any preemption; a waiting queue that
grows. Each alert names a bottleneck; the caller supplies its remedy text (annotations).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from rooftop.serving.engines import EngineMap
from rooftop.serving.promql import Scope, has_tokens, own

HIGH_MBU, LOW_MFU, HIGH_MFU, LOW_BOTH, HIGH_KV = 0.75, 0.05, 0.45, 0.10, 0.9


class AlertTiming(msgspec.Struct, frozen=True):
    """How long a condition must hold (``for``) and the span over which growth is judged."""

    hold: str = "10m"
    trend: str = "10m"


class Alert(msgspec.Struct, frozen=True):
    """One alert before annotation: name, expression, bottleneck, severity, summary template."""

    name: str
    expr: str
    bottleneck: str
    severity: str
    summary: str
    scenario: str = ""


def _scenarios(emap: EngineMap, s: Scope, tp: int, t: AlertTiming) -> list[Alert]:
    keys = {m.key for m in emap.metrics}

    def mfu(phase: str) -> str:
        return own(s, "rooftop:mfu", f'phase="{phase}"')

    def mbu(phase: str) -> str:
        return own(s, "rooftop:mbu", f'phase="{phase}"')

    out = [
        Alert(
            "RooftopDecodeMemoryBound",
            f"{mbu('decode')} > {HIGH_MBU} and {mfu('decode')} < {LOW_MFU}",
            "weight-bandwidth",
            "warning",
            "Scenario A: decode memory-bound on {{ $labels.instance }} (decode MBU {{ $value | humanizePercentage }})",
            "A",
        )
    ]
    if "ttft_s" in keys:
        growing = f"deriv({own(s, 'rooftop:ttft_s:mean')}[{t.trend}]) > 0"
        out.append(
            Alert(
                "RooftopPrefillComputeBound",
                f"{mfu('prefill')} > {HIGH_MFU} and ignoring (phase) {growing}",
                "compute",
                "info",
                "Scenario B: prefill compute-bound on {{ $labels.instance }} "
                "(prefill MFU {{ $value | humanizePercentage }}) and TTFT growing",
                "B",
            )
        )
    low = f"{mfu('total')} < {LOW_BOTH} and {mbu('total')} < {LOW_BOTH}"
    if "requests_running" in keys:
        likely = "communication" if tp > 1 else "launch"
        out.append(
            Alert(
                "RooftopUnderutilised",
                f"{low} and ignoring (phase) {own(s, 'rooftop:requests_running')} > 0",
                likely,
                "warning",
                "Scenario C: MFU {{ $value | humanizePercentage }} and MBU under 10 % while requests run on "
                "{{ $labels.instance }} (likely " + likely + "; take a trace to confirm)",
                "C",
            )
        )
    if "requests_waiting" in keys:
        out.append(
            Alert(
                "RooftopUnderutilisedWithQueue",
                f"{low} and ignoring (phase) {own(s, 'rooftop:requests_waiting')} > 0",
                "scheduler",
                "warning",
                "Scenario D: MFU {{ $value | humanizePercentage }} and MBU under 10 % with requests waiting on "
                "{{ $labels.instance }} (scheduling or host bubbles)",
                "D",
            )
        )
    return out


def _capacity(emap: EngineMap, s: Scope, t: AlertTiming) -> list[Alert]:
    keys = {m.key for m in emap.metrics}
    out = []
    kv = [f"{own(s, 'rooftop:kv_usage')} >= {HIGH_KV}"] if "kv_usage" in keys else []
    if "preemptions" in keys:
        kv.append(f"{own(s, 'rooftop:preemptions:rate')} > 0")
    if kv:
        out.append(
            Alert(
                "RooftopKvCachePressure",
                " or ".join(kv),
                "kv-capacity",
                "warning",
                "KV-cache pressure on {{ $labels.instance }}: usage at or above 90 % or requests preempted",
            )
        )
    if "requests_waiting" in keys:
        waiting = own(s, "rooftop:requests_waiting")
        out.append(
            Alert(
                "RooftopQueueGrowing",
                f"deriv({waiting}[{t.trend}]) > 0 and {waiting} > 0",
                "scheduler",
                "warning",
                "Queue growing on {{ $labels.instance }}: {{ $value | humanize }} requests/s more waiting",
            )
        )
    return out


def alert_rules(
    emap: EngineMap,
    scope: Scope,
    tp: int,
    annotations: Mapping[str, Mapping[str, str]],
    timing: AlertTiming | None = None,
) -> list[dict[str, Any]]:
    """Alerting rules; ``annotations`` maps a bottleneck to its remedy/check_first texts."""
    timing = timing or AlertTiming()
    alerts = (_scenarios(emap, scope, tp, timing) if has_tokens(emap) else []) + _capacity(emap, scope, timing)
    out = []
    for a in alerts:
        labels = {**scope.labels, "severity": a.severity, "bottleneck": a.bottleneck}
        if a.scenario:
            labels["scenario"] = a.scenario
        out.append(
            {
                "alert": a.name,
                "expr": a.expr,
                "for": timing.hold,
                "labels": labels,
                "annotations": {"summary": a.summary, **annotations.get(a.bottleneck, {})},
            }
        )
    return out
