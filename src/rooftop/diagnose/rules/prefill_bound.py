"""Prefill: compute-bound (seed 001 scenario B) or still memory-bound below the ridge (seed 003 §7)."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES


@rule
def prefill_bound(ev: Evidence) -> list[Finding]:
    """Say which side of the ridge a prefill step sits on, with the prompt length that crosses it."""
    t = ev.totals
    if t is None or t.phase != "prefill" or t.bytes <= 0:
        return []
    ridge = t.peak_flop_per_s / t.bandwidth_bytes_per_s
    evidence = {
        "intensity_flop_per_byte": round(t.intensity, 1),
        "ridge_flop_per_byte": round(ridge, 1),
        "mfu": round(t.mfu, 3),
        "mbu": round(t.mbu, 3),
        "prompt": ev.workload.get("prompt"),
        "batch": ev.workload.get("batch"),
    }
    if t.bound == "compute":
        utilisation = ev.profile.utilisation("MFU", t.mfu) if ev.profile else f"MFU {t.mfu:.0%} at the roof"
        return [
            Finding(
                code="prefill-compute-bound",
                severity=Severity.INFO,
                title=(
                    f"Prefill is compute-bound: intensity {t.intensity:.0f} FLOP/B > ridge {ridge:.0f}; {utilisation}"
                ),
                bottleneck="compute",
                evidence=evidence,
                remedies=REMEDIES["compute"],
                check_first=CHECK_FIRST["compute"],
            )
        ]
    if t.bound.startswith("memory"):
        return [
            Finding(
                code="prefill-memory-bound",
                severity=Severity.WARN,
                title=(
                    f"Prefill is still memory-bound: intensity {t.intensity:.0f} FLOP/B < ridge {ridge:.0f} "
                    "(short prompt or small batch: weights are read for too few tokens)"
                ),
                bottleneck="weight-bandwidth",
                evidence=evidence,
                remedies=REMEDIES["weight-bandwidth"][:2],
                check_first=CHECK_FIRST["weight-bandwidth"],
            )
        ]
    return []
