"""A setup whose weights and KV cache exceed the device's usable memory cannot run: say so, and what would fit.

The roofline of such a setup is still computed (it is what the step would cost if it fitted);
this finding, at the highest severity, says it cannot run as given and names the smallest change
that fits: a tensor-parallel degree, a narrower weight dtype or a narrower KV dtype.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rooftop.core.enums import Severity
from rooftop.core.findings import Finding, Remedy
from rooftop.diagnose.engine import Evidence, rule
from rooftop.dtypes import dtype as lookup_dtype
from rooftop.units import GIB

if TYPE_CHECKING:
    from rooftop.diagnose.evidence.memory import MemoryEvidence

TP_DEGREES = (2, 4, 8, 16)
WEIGHT_DTYPES = ("fp8", "int4")
KV_DTYPES = ("fp8",)
SIDE_EFFECTS = {
    "--tp": "more GPUs per replica; an all-reduce per layer adds communication time",
    "--weight-dtype": "quantisation error: quality must be re-validated",
    "--kv-dtype": "KV quantisation error; kernel support varies",
}


def bytes_per_element(name: str) -> float:
    """Bytes per element of a dtype name (int4 scales left out: a slight underestimate)."""
    return lookup_dtype(name).bytes


def _fits(weights: float, kv: float, act: float, usable: float) -> bool:
    return weights + kv + act <= usable


def what_fits(memory: MemoryEvidence, tp: int, weight_dtype: str, kv_dtype: str, mixed: bool = False) -> list[str]:
    """The smallest changes that fit (per GPU: weights and KV shard over TP; dtypes scale their bytes).

    ``mixed``: the routed experts are stored in another dtype (gpt-oss's MXFP4): a --weight-dtype,
    which would set them too, is not offered (the bytes do not scale by one ratio).
    """
    w, kv, act, usable = memory.weights_bytes, memory.kv_cache_bytes, memory.activation_bytes, memory.usable_bytes
    options = []
    for degree in TP_DEGREES:
        if degree > tp and _fits(w * tp / degree, kv * tp / degree, act, usable):
            options.append(f"--tp {degree} ({(w + kv) * tp / degree / GIB:.1f} GiB of weights and KV per GPU)")
            break
    wb = bytes_per_element(weight_dtype)
    for dtype in () if mixed else WEIGHT_DTYPES:
        if bytes_per_element(dtype) < wb and _fits(w * bytes_per_element(dtype) / wb, kv, act, usable):
            options.append(f"--weight-dtype {dtype} (weights {w * bytes_per_element(dtype) / wb / GIB:.1f} GiB)")
            break
    kb = bytes_per_element(kv_dtype)
    for dtype in KV_DTYPES:
        if bytes_per_element(dtype) < kb and _fits(w, kv * bytes_per_element(dtype) / kb, act, usable):
            options.append(f"--kv-dtype {dtype} (KV {kv * bytes_per_element(dtype) / kb / GIB:.1f} GiB)")
    return options


@rule
def does_not_fit(ev: Evidence) -> list[Finding]:
    """Weights + KV + activations above the usable memory: the setup cannot run as given."""
    memory = ev.memory
    if memory is None or memory.fits or memory.free_bytes >= 0:
        return []
    w = ev.workload
    tp = int(w.get("tp") or 1)
    dtypes = str(w.get("weight_dtype") or "bf16"), str(w.get("kv_dtype") or "bf16")
    options = what_fits(memory, tp, *dtypes, mixed=bool(w.get("expert_dtype")))
    need = memory.usable_bytes - memory.free_bytes
    fix = "; fits with " + " or ".join(options) if options else "; no single TP degree up to 16 or dtype change fits"
    return [
        Finding(
            code="does-not-fit",
            severity=Severity.CRITICAL,
            title=(
                f"Does not fit: {need / GIB:.1f} GiB needed per GPU (weights {memory.weights_bytes / GIB:.1f} GiB, "
                f"KV {memory.kv_cache_bytes / GIB:.1f} GiB) > {memory.usable_bytes / GIB:.1f} GiB usable on "
                f"{w.get('hardware', 'the device')}{fix}. The roofline above is what a step would cost if it fitted"
            ),
            bottleneck="capacity",
            evidence={
                "needed_bytes": need,
                "usable_bytes": memory.usable_bytes,
                "options": options,
            },
            remedies=tuple(Remedy(o, SIDE_EFFECTS[o.split()[0]]) for o in options),
            check_first="weights and KV bytes per GPU, tensor-parallel degree, dtypes",
        )
    ]
