"""Materialised attention scores dominating HBM traffic (seed 003 §8, attention IO row of §13)."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES

SHARE = 0.2


@rule
def attention_io(ev: Evidence) -> list[Finding]:
    """Flag when the score/softmax traffic of a materialised attention is ≥ 20 % of the step's bytes."""
    t = ev.totals
    if t is None or t.bytes <= 0 or ev.workload.get("attention") != "materialized":
        return []
    score_bytes = sum(
        p.traffic.activation_bytes for p in ev.points if p.traffic and p.op in ("attn_score", "softmax", "attn_value")
    )
    share = score_bytes / t.bytes
    if share < SHARE:
        return []
    return [
        Finding(
            code="attention-io",
            severity=Severity.WARN,
            title=f"Materialised attention moves {share:.0%} of the step's bytes through HBM (score matrix)",
            bottleneck="attention-io",
            evidence={"score_bytes": score_bytes, "share_of_bytes": round(share, 3)},
            remedies=REMEDIES["attention-io"],
            check_first=CHECK_FIRST["attention-io"],
        )
    ]
