"""Memory budget per GPU: weights, KV cache at the workload's context, activations, free; max batch.

The usable share of the card is ``memory_utilization`` (default 0.9, vLLM's
``gpu_memory_utilization`` default). Activations are the transient peak of one step: the
widest live tensors (hidden, q/kv, MLP intermediate ×2) for all tokens of the step, plus fp32
logits for the last position of each sequence. KV for a sequence holds ``past + new`` tokens in
each full-attention layer, at most the window in a sliding-window layer and at most one chunk in
a chunked layer (engines free what falls out: vLLM, SGLang), each layer kind at its own KV width
(Gemma 4, MiMo-V2); KV-shared layers hold nothing of their own. Gated DeltaNet and Mamba layers
hold a recurrent state of constant size instead (activation dtype).
"""

from __future__ import annotations

import functools
import math

import msgspec
import numpy as np
from numpy.typing import NDArray

from rooftop.analytic.cost import Array
from rooftop.analytic.ops.gemm import GROUP_SCALE_BYTES
from rooftop.core.workload import Workload
from rooftop.dtypes import dtype
from rooftop.models.spec import ModelSpec

DEFAULT_MEMORY_UTILIZATION = 0.9


class MemoryBudget(msgspec.Struct, frozen=True):
    """Bytes per GPU (arrays over the workload grid)."""

    capacity_bytes: float
    usable_bytes: float
    weights_bytes: float
    kv_cache_bytes: Array
    activation_bytes: Array
    kv_bytes_per_sequence: Array
    max_batch: Array

    @property
    def free_bytes(self) -> Array:
        """Usable bytes left after weights, KV and activations (negative: does not fit)."""
        return self.usable_bytes - self.weights_bytes - self.kv_cache_bytes - self.activation_bytes

    @property
    def fits(self) -> NDArray[np.bool_]:
        """Whether the workload fits."""
        return self.free_bytes >= 0


@functools.lru_cache(maxsize=64)
def param_count(spec: ModelSpec) -> int:
    """``spec.param_count()``, remembered per spec (a what-if asks for it dozens of times)."""
    return spec.param_count()


def weights_bytes_per_gpu(spec: ModelSpec, w: Workload) -> float:
    """Every parameter in its weight dtype (plus group scales when weight-only quantised), / tp.

    The routed experts in ``w.experts_weight_dtype``, the rest in ``w.weight_dtype``: gpt-oss-120b
    stores 114.7 B expert weights in MXFP4 beside 2.1 B in bf16 (65.2 GB, one 80 GB GPU), not 117 B
    in bf16 (234 GB).
    """
    rest, experts = _weight_bytes(spec, w)
    return (rest + experts) / w.tp


def expert_bytes_share(spec: ModelSpec, w: Workload) -> float:
    """Share of the weight bytes in routed experts (what expert parallelism shards), at ``w``'s dtypes."""
    rest, experts = _weight_bytes(spec, w)
    return experts / (rest + experts) if experts else 0.0


def _weight_bytes(spec: ModelSpec, w: Workload) -> tuple[float, float]:
    """(bytes of every weight but the routed experts', bytes of the routed experts') of the whole model."""
    experts = spec.routed_expert_params
    rest = param_count(spec) - experts
    return rest * _bytes_per_weight(w.weight_dtype, w), experts * _bytes_per_weight(w.experts_weight_dtype, w)


def _bytes_per_weight(name: str, w: Workload) -> float:
    per_elt = dtype(name).bytes
    return per_elt + GROUP_SCALE_BYTES.get(name, 0.0) / w.quant_group_size


def kv_bytes_per_sequence(spec: ModelSpec, w: Workload) -> Array:
    """KV (and recurrent-state) bytes one sequence holds per GPU after this step, layer by layer.

    gpt-oss-20b bf16 at 32,768 tokens: 12 full layers × 32,768 + 12 sliding layers × 128 tokens,
    × 2 × 8 KV heads × 64 × 2 B = 0.81 GB, not 1.61 GB (all 24 layers at 32,768: 1.99×).
    """
    context = np.asarray(w.kv_tokens_after, dtype=np.float64)
    kv = 0.0 * context
    for g in spec.kv_groups():  # each KV head is kept whole: kv_heads < tp leaves one per GPU
        per_layer_token = g.elements_per_token * dtype(w.kv_dtype).bytes
        if g.kv_heads:  # MLA's latent (kv_heads 0) is not split
            per_layer_token *= math.ceil(g.kv_heads / w.tp) / g.kv_heads
        kv = kv + g.layers * per_layer_token * (np.minimum(context, g.bound) if g.bound else context)
    state = spec.state_elements_per_sequence * dtype(w.act_dtype).bytes / w.tp
    result: Array = kv + state
    return result


def budget(
    spec: ModelSpec, w: Workload, capacity_bytes: float, memory_utilization: float = DEFAULT_MEMORY_UTILIZATION
) -> MemoryBudget:
    """Memory budget of ``w`` on a card of ``capacity_bytes``; max batch at the same shapes."""
    a = dtype(w.act_dtype).bytes
    kv_per_seq = kv_bytes_per_sequence(spec, w)
    q_dim = max([spec.q_dim, *(a.q_dim for _, a in spec.attention_shapes)])
    ffn = math.ceil(spec.moe.expert_ffn * spec.moe.active_k) if spec.moe else spec.widest_ffn
    widest = max(spec.hidden, q_dim // w.tp, 2 * ffn // w.tp)
    act_per_seq = w.new_tokens * (2 * spec.hidden + widest) * a + spec.vocab / w.tp * 4.0
    batch = np.asarray(w.batch, dtype=np.float64)
    usable = capacity_bytes * memory_utilization
    weights = weights_bytes_per_gpu(spec, w)
    with np.errstate(divide="ignore", invalid="ignore"):
        max_batch = np.floor(np.maximum(usable - weights, 0) / (kv_per_seq + act_per_seq))
    return MemoryBudget(capacity_bytes, usable, weights, batch * kv_per_seq, batch * act_per_seq, kv_per_seq, max_batch)
