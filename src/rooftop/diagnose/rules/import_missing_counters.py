"""An Nsight Compute export without DRAM or FLOP counters: its points are timed but hold 0 bytes / 0 FLOPs."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule


@rule
def import_missing_counters(ev: Evidence) -> list[Finding]:
    """Name the counter groups the export lacks and the ``ncu --metrics`` that collect them."""
    missing = ev.workload.get("missing_counters")
    if not isinstance(missing, dict) or not missing:
        return []
    zero = {"DRAM byte counters": "0 bytes", "FLOP counters": "0 FLOPs"}
    return [
        Finding(
            code="ncu-counters-missing",
            severity=Severity.WARN,
            title=(
                f"this ncu export has no {' and no '.join(missing)}: its points are timed but hold "
                f"{' and '.join(zero[g] for g in missing)}; collect with ncu --metrics " + "; ".join(missing.values())
            ),
            bottleneck="input",
            evidence={"missing_counters": dict(missing)},
            check_first="the ncu command line: --section/--set alone do not collect the counters rooftop needs",
        )
    ]
