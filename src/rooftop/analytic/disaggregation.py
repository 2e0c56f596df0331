"""Disaggregated prefill and decode: KV transfer per request, and pool sizes for a request rate.

Conventions (docs/analytic.md, "Disaggregated prefill/decode"), after DistServe / Splitwise:

* a prefill instance (``tp`` GPUs) runs one prompt at a time and sends its whole KV cache to a
  decode instance: prompt tokens × the model's KV bytes per token (all layers, the KV dtype);
  each of the tp GPUs sends its shard in parallel over its own link, ``intra`` (NVLink, per
  direction) or ``inter`` (the per-GPU NIC): transfer = bytes / (tp × link roof);
* TTFT = prefill + transfer (no queueing); a prefill instance serves 1 / prefill requests/s;
* a decode instance runs the largest candidate batch B whose TPOT meets the SLO and whose KV
  fits; by Little's law it holds rate × output × TPOT(B) sequences, so it serves B / (output ×
  TPOT(B)) requests/s;
* pools: ⌈rate × prefill⌉ prefill instances and ⌈rate × output × TPOT(B) / B⌉ decode instances,
  each × tp GPUs (utilisation up to 100 %: queueing delay is not modelled).
"""

from __future__ import annotations

import math

import msgspec
import numpy as np
from msgspec.structs import replace

from rooftop.analytic.engine import evaluate
from rooftop.analytic.memory import budget
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.dtypes import dtype
from rooftop.errors import CatalogError, WorkloadError
from rooftop.models.spec import ModelSpec

LINKS = {"intra": "link", "inter": "network"}
CANDIDATE_BATCHES = tuple(2**i for i in range(12))  # 1 .. 2048


def kv_transfer_bytes(spec: ModelSpec, w: Workload) -> float:
    """KV bytes of one prompt: prompt tokens × KV bytes per token (all layers, KV dtype).

    Llama-3.1-8B, bf16 KV, 2048 tokens: 32 layers × 2 × 8 heads × 128 × 2 B = 131,072 B per
    token → 268,435,456 B (256 MiB) per request.
    """
    return float(np.asarray(w.prompt)) * spec.kv_bytes_per_token(dtype(w.kv_dtype).bytes)


def link_rate(roofs: Roofs, link: str, tp: int) -> float:
    """Bytes/s a tp-GPU instance sends over ``link`` ('intra' or 'inter'), all GPUs together."""
    level = LINKS.get(link)
    if level is None:
        raise WorkloadError(f"KV transfer link must be one of {', '.join(LINKS)}, not {link!r}")
    if not roofs.has_memory(level):
        raise CatalogError(f"{roofs.name} has no {level} bandwidth roof; a KV transfer over {link} needs one")
    return roofs.bandwidth(level) * tp


class Pools(msgspec.Struct, frozen=True):
    """Prefill and decode pools for a request rate, and the latencies they give."""

    rate_per_s: float
    tp: int
    prefill_s: float
    transfer_bytes: float
    transfer_s: float
    decode_batch: int
    tpot_s: float
    output_tokens: int
    prefill_instances: int
    decode_instances: int

    @property
    def ttft_s(self) -> float:
        """Prefill + KV transfer."""
        return self.prefill_s + self.transfer_s

    @property
    def prefill_gpus(self) -> int:
        """Prefill instances × tp."""
        return self.prefill_instances * self.tp

    @property
    def decode_gpus(self) -> int:
        """Decode instances × tp."""
        return self.decode_instances * self.tp

    @property
    def tokens_per_s_per_gpu(self) -> float:
        """Output tokens/s of the rate, per GPU of both pools."""
        return self.rate_per_s * self.output_tokens / (self.prefill_gpus + self.decode_gpus)


def decode_batch_for(
    spec: ModelSpec, roofs: Roofs, w: Workload, tpot_slo_s: float | None, memory_utilization: float
) -> tuple[int, float]:
    """The largest candidate batch (powers of two) that fits and meets the TPOT SLO, and its TPOT."""
    b = np.asarray(CANDIDATE_BATCHES, dtype=np.float64)
    dw = replace(w, phase=Phase.DECODE, batch=b)
    tpot = np.broadcast_to(evaluate(spec, dw, roofs).time_s, b.shape)
    ok = np.asarray(budget(spec, dw, roofs.capacity_bytes, memory_utilization).fits) | ~np.isfinite(
        roofs.capacity_bytes
    )
    ok = np.broadcast_to(ok, b.shape)
    if tpot_slo_s is not None:
        ok = ok & (tpot <= tpot_slo_s)
    if not np.any(ok):
        raise WorkloadError("no decode batch meets the TPOT objective and fits in memory")
    i = int(np.flatnonzero(ok)[-1])
    return int(b[i]), float(tpot[i])


def size_pools(
    spec: ModelSpec,
    roofs: Roofs,
    w: Workload,
    rate_per_s: float,
    output_tokens: int,
    link: str = "inter",
    tpot_slo_s: float | None = None,
    memory_utilization: float = 0.9,
) -> Pools:
    """Pools for ``rate_per_s`` requests of ``w.prompt`` tokens in and ``output_tokens`` out."""
    if rate_per_s <= 0:
        raise WorkloadError(f"request rate must be > 0, got {rate_per_s}")
    prefill_s = float(evaluate(spec, replace(w, phase=Phase.PREFILL, batch=1), roofs).time_s)
    moved = kv_transfer_bytes(spec, w)
    transfer_s = moved / link_rate(roofs, link, w.tp)
    batch, tpot = decode_batch_for(spec, roofs, w, tpot_slo_s, memory_utilization)
    prefill_n = math.ceil(rate_per_s * prefill_s - 1e-12)
    decode_n = math.ceil(rate_per_s * output_tokens * tpot / batch - 1e-12)
    return Pools(
        rate_per_s, w.tp, prefill_s, moved, transfer_s, batch, tpot, output_tokens, max(prefill_n, 1), max(decode_n, 1)
    )
