"""Misdiagnosis guard (seed 003 §16): 'INT4 is a quarter of the bytes, so 4× faster'."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule

FOUR_BIT = ("int4", "fp4")


@rule
def guard_int4(ev: Evidence) -> list[Finding]:
    """Weight-only 4-bit: the step is not 4× faster than 16-bit (scales, activations, KV, compute dtype)."""
    t = ev.totals
    if t is None or ev.workload.get("weight_dtype") not in FOUR_BIT or t.bytes <= 0:
        return []
    weight_share = t.weight_bytes / t.bytes
    # if the same weights were 16-bit: weight bytes grow 4× (scales aside), the rest stays
    bf16_bytes = t.bytes - t.weight_bytes + 4.0 * t.weight_bytes
    speedup = bf16_bytes / t.bytes
    return [
        Finding(
            code="guard-int4-not-4x",
            severity=Severity.INFO,
            title=(
                f"4-bit weights are {weight_share:.0%} of this step's bytes; at the roofs the step is at most "
                f"{speedup:.1f}× faster than 16-bit, not 4×: group scales, activations and KV stay, packing and "
                f"dequantisation cost time, and the GEMMs still run on the {ev.workload.get('compute_dtype')} roof"
            ),
            bottleneck="guard",
            evidence={"weight_share_of_bytes": round(weight_share, 3), "speedup_bound_vs_16bit": round(speedup, 2)},
        )
    ]
