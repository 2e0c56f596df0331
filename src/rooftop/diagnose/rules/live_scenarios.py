"""Live: seed 001's scenarios A–D from MFU and MBU per phase, where telemetry can tell them apart.

A: decode memory-bound (MBU > 75 %, MFU < 5 %). B: prefill compute-bound (MFU > 45 %).
C/D: both MFU and MBU low while requests run — communication stalls (C, likely when tp > 1) or
host launch/scheduling bubbles (D); /metrics cannot separate them, a trace can.
"""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

LOW = 0.10


@rule
def live_scenarios(ev: Evidence) -> list[Finding]:
    """Name scenario A, B or C/D for a live window with accounting."""
    live = ev.live
    acc = live.utilisation if live else None
    if live is None or acc is None:
        return []
    mfu, mbu = acc.mfu, acc.mbu
    evidence = {"mfu": mfu, "mbu": mbu, "batch": acc.batch, "mean_prompt_tokens": acc.mean_prompt_tokens}
    out = []
    if (mbu.get("decode") or 0) > 0.75 and (mfu.get("decode") or 0) < 0.05:
        out.append(
            Finding(
                "live-decode-memory-bound",
                Severity.WARN,
                f"Scenario A: decode is memory-bound (MBU {mbu['decode']:.0%}, MFU {mfu['decode']:.1%})",
                "weight-bandwidth",
                evidence,
                REMEDIES["weight-bandwidth"],
                CHECK_FIRST["weight-bandwidth"],
            )
        )
    if (mfu.get("prefill") or 0) > 0.45:
        out.append(
            Finding(
                "live-prefill-compute-bound",
                Severity.INFO,
                f"Scenario B: prefill is compute-bound (MFU {mfu['prefill']:.0%})",
                "compute",
                evidence,
                REMEDIES["compute"],
                CHECK_FIRST["compute"],
            )
        )
    running = live.gauges.get("requests_running", 0.0)
    total_mfu, total_mbu = mfu.get("total"), mbu.get("total")
    if running > 0 and total_mfu is not None and total_mbu is not None and total_mfu < LOW and total_mbu < LOW:
        tp = ev.workload.get("tp", 1)
        likely = "communication" if tp > 1 else "launch"
        out.append(
            Finding(
                "live-underutilised",
                Severity.WARN,
                f"Scenario {'C' if tp > 1 else 'D'}: MFU {total_mfu:.1%} and MBU {total_mbu:.1%} while "
                f"{running:.0f} requests run — the device waits (likely {likely}; take a trace to confirm)",
                likely,
                evidence,
                REMEDIES[likely],
                CHECK_FIRST[likely],
            )
        )
    return out
