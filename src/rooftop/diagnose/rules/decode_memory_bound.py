"""Decode bound by weight or KV bandwidth (seed 001 scenario A; seed 003 §6, §8)."""

from __future__ import annotations

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding
from rooftop.diagnose.engine import Evidence, rule
from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES


@rule
def decode_memory_bound(ev: Evidence) -> list[Finding]:
    """Decode below the ridge: name whether weights or the KV cache dominate the bytes."""
    t = ev.totals
    if t is None or t.phase != "decode" or not t.bound.startswith("memory") or t.bytes <= 0:
        return []
    compute = ev.workload.get("compute_dtype", "bf16")
    ridge = t.peak_flop_per_s / t.bandwidth_bytes_per_s
    weight_share = t.weight_bytes / t.bytes
    kv_share = t.kv_read_bytes / t.bytes
    evidence = {
        "intensity_flop_per_byte": round(t.intensity, 3),
        "ridge_flop_per_byte": round(ridge, 1),
        "compute_dtype": compute,
        "mbu": round(t.mbu, 3),
        "mfu": round(t.mfu, 4),
        "weight_share_of_bytes": round(weight_share, 3),
        "kv_share_of_bytes": round(kv_share, 3),
        "batch": ev.workload.get("batch"),
        "context": ev.workload.get("context"),
    }
    if kv_share >= weight_share:
        return [
            Finding(
                code="decode-kv-bound",
                severity=Severity.WARN,
                title=(
                    f"Decode is KV-cache-bandwidth bound: KV reads are {kv_share:.0%} of the bytes at context "
                    f"{ev.workload.get('context')}; intensity {t.intensity:.2f} FLOP/B vs ridge {ridge:.0f}"
                ),
                bottleneck="kv-bandwidth",
                evidence=evidence,
                remedies=REMEDIES["kv-bandwidth"],
                check_first=CHECK_FIRST["kv-bandwidth"],
            )
        ]
    utilisation = f"MBU {t.mbu:.0%} at the roof, MFU {t.mfu:.1%}"
    host = ev.profile is not None and ev.profile.host_bound
    if ev.profile is not None:  # measured: MBU is what the step reached, not what the roof allows
        utilisation = ev.profile.utilisation("MBU", t.mbu)
    return [
        Finding(
            code="decode-weight-bound",
            severity=Severity.INFO if host or t.mfu >= 0.05 else Severity.WARN,
            title=(
                f"Decode is weight-bandwidth bound: intensity {t.intensity:.2f} FLOP/B ≪ ridge {ridge:.0f}; "
                f"{utilisation}"
            ),
            bottleneck="weight-bandwidth",
            evidence=evidence,
            remedies=REMEDIES["weight-bandwidth"],
            check_first=CHECK_FIRST["weight-bandwidth"],
        )
    ]
