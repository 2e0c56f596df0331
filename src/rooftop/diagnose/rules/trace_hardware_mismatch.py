"""A trace of one vendor's GPU placed under another vendor's roofs (e.g. an AMD trace with -H h100-sxm)."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule


@rule
def trace_hardware_mismatch(ev: Evidence) -> list[Finding]:
    """Warn when the trace's GPU vendor differs from the ``--hardware`` device's vendor."""
    traced = str(ev.workload.get("vendor") or "")
    chosen = ev.roofs.vendor
    if not traced or not chosen or traced.lower() == chosen.lower():
        return []
    device = ev.workload.get("device") or "its GPU"
    return [
        Finding(
            code="hardware-mismatch",
            severity=Severity.WARN,
            title=(
                f"this trace ran on an {traced} GPU ({device}) but the roofs are {chosen} "
                f"{ev.roofs.name}: pass the --hardware it ran on (rooftop hardware list)"
            ),
            bottleneck="input",
            evidence={"trace_vendor": traced, "trace_device": ev.workload.get("device", ""), "roofs": ev.roofs.name},
        )
    ]
