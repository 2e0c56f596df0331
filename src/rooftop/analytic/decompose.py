"""ModelSpec × Workload → the operators of one step, per GPU, with their costs.

Tensor parallelism shards heads, KV heads, MLP width and vocabulary across ``tp`` GPUs
(Megatron style); norms, embeddings and MLA's down-projections are replicated. Costs are per
GPU; two all-reduces per layer cross the link. When kv_heads < tp each GPU keeps one KV head.
The lm_head runs on the last position of each sequence only (as serving engines do), so prefill
pays it once per sequence, not once per prompt token.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rooftop.analytic.cost import OpCost, cost
from rooftop.core.workload import Workload
from rooftop.dtypes import dtype
from rooftop.errors import WorkloadError
from rooftop.models.spec import ModelSpec

WEIGHT_ONLY_QUANT = ("int8", "int4", "fp4")


@dataclass(frozen=True)
class Op:
    """One operator of the step: ``count`` identical occurrences (usually one per layer)."""

    name: str
    kind: str
    count: int
    cost: OpCost
    group: str  # attention | mlp | moe | norm | embedding | head | comm


def decompose(spec: ModelSpec, w: Workload) -> list[Op]:
    """The operators of one prefill or decode step of ``spec`` under ``w``, per GPU."""
    tp = w.tp
    if spec.heads % tp:
        raise WorkloadError(f"tp={tp} does not divide {spec.name}'s {spec.heads} attention heads")
    a = dtype(w.act_dtype).bytes
    kvb = dtype(w.kv_dtype).bytes
    wb = dtype(w.weight_dtype).bytes
    grouped = w.weight_dtype in WEIGHT_ONLY_QUANT and w.compute not in ("int8", "int4", "fp4")
    t = w.tokens
    b, new, past = w.batch, w.new_tokens, w.past_tokens
    heads = spec.heads / tp
    kv_heads = math.ceil(spec.kv_heads / tp)
    L = spec.layers

    def proj(name: str, k: int, n: int, count: int = L, tokens: object = None, group: str = "attention") -> Op:
        shape = {
            "tokens": t if tokens is None else tokens,
            "k": k,
            "n": n,
            "weight_bytes_per_elt": wb,
            "act_bytes_per_elt": a,
            "group_size": w.quant_group_size,
            "grouped_scales": grouped,
        }
        return Op(name, "gemm", count, cost("gemm", **shape), group)

    def norm(name: str, count: int, width: int = spec.hidden, tokens: object = None) -> Op:
        return Op(
            name,
            "norm",
            count,
            cost("norm", tokens=t if tokens is None else tokens, width=width, kind=spec.norm, act_bytes=a),
            "norm",
        )

    tables = 2 if spec.learned_positions else 1
    ops = [
        Op(
            "embed",
            "embedding",
            1,
            cost("embedding", tokens=t, width=spec.hidden, weight_bytes_per_elt=wb, act_bytes=a, tables=tables),
            "embedding",
        ),
        norm("attn_norm", L),
    ]
    ops += _attention(spec, w, proj, heads, kv_heads, a, kvb)
    ops.append(
        Op(
            "kv_append",
            "kv_append",
            L,
            cost(
                "kv_append",
                tokens=t,
                act_bytes=a,
                kv_bytes=kvb,
                elements_per_token=_kv_elements_per_layer(spec, kv_heads),
            ),
            "attention",
        )
    )
    attn = {
        "batch": b,
        "new": new,
        "past": past,
        "heads": heads,
        "act_bytes": a,
        "impl": w.attention,
        "causal": w.causal,
    }
    qk_dim, v_dim, score_kv_heads, reads_v = _attention_dims(spec, w, kv_heads)
    ops.append(
        Op(
            "attn_score",
            "attn_score",
            L,
            cost("attn_score", **attn, kv_heads=score_kv_heads, qk_dim=qk_dim, kv_bytes=kvb),
            "attention",
        )
    )
    ops.append(Op("softmax", "softmax", L, cost("softmax", **attn), "attention"))
    ops.append(
        Op(
            "attn_value",
            "attn_value",
            L,
            cost("attn_value", **attn, kv_heads=score_kv_heads, v_dim=v_dim, kv_bytes=kvb, reads_v=reads_v),
            "attention",
        )
    )
    o_in = spec.heads * (spec.mla.v_head_dim if spec.mla else spec.head_dim) // tp
    ops.append(proj("o_proj", o_in, spec.hidden))
    if tp > 1:
        ops.append(
            Op(
                "tp_allreduce_attn",
                "all_reduce",
                L,
                cost("all_reduce", tokens=t, width=spec.hidden, act_bytes=a, tp=tp),
                "comm",
            )
        )
    ops.append(norm("ffn_norm", L))
    if spec.norms_per_layer > 2:
        ops.append(norm("extra_norms", L * (spec.norms_per_layer - 2)))
    ops += _feed_forward(spec, w, proj, a, wb, grouped)
    if tp > 1:
        ops.append(
            Op(
                "tp_allreduce_mlp",
                "all_reduce",
                L,
                cost("all_reduce", tokens=t, width=spec.hidden, act_bytes=a, tp=tp),
                "comm",
            )
        )
    ops.append(norm("final_norm", 1))
    ops.append(proj("lm_head", spec.hidden, math.ceil(spec.vocab / tp), count=1, tokens=b + 0 * new, group="head"))
    return [op for op in ops if op.count > 0]


def _kv_elements_per_layer(spec: ModelSpec, kv_heads_local: int) -> float:
    if spec.mla:
        return float(spec.mla.kv_lora_rank + spec.mla.qk_rope_head_dim)
    return 2.0 * kv_heads_local * spec.head_dim


def _attention_dims(spec: ModelSpec, w: Workload, kv_heads: int) -> tuple[int, int, float, bool]:
    """(qk_dim, v_dim, kv_heads read, whether V is a separate read) of the attention kernel.

    MLA decode runs in the absorbed form (FlashMLA, vLLM): all heads attend to the one cached
    latent of width kv_lora + rope, read once. MLA prefill runs in the expanded form
    (qk = nope + rope, v = v_head_dim), as vLLM does; its KV bytes are still the latent's.
    """
    if not spec.mla:
        return spec.head_dim, spec.head_dim, float(kv_heads), True
    m = spec.mla
    latent = m.kv_lora_rank + m.qk_rope_head_dim
    if w.phase.value == "decode":
        return latent, m.kv_lora_rank, 1.0, False
    # expanded form: the latent (read once) stands for K and V; express it through qk_dim bytes
    return (
        m.qk_nope_head_dim + m.qk_rope_head_dim,
        m.v_head_dim,
        latent / (m.qk_nope_head_dim + m.qk_rope_head_dim),
        False,
    )


def _attention(spec: ModelSpec, w: Workload, proj, heads: float, kv_heads: int, a: float, kvb: float) -> list[Op]:  # type: ignore[no-untyped-def]
    tp = w.tp
    if spec.mla:
        m = spec.mla
        qk = m.qk_nope_head_dim + m.qk_rope_head_dim
        ops = []
        if m.q_lora_rank:
            ops += [
                proj("q_a_proj", spec.hidden, m.q_lora_rank),
                proj("q_b_proj", m.q_lora_rank, spec.heads * qk // tp),
            ]
        else:
            ops.append(proj("q_proj", spec.hidden, spec.heads * qk // tp))
        ops.append(proj("kv_a_proj", spec.hidden, m.kv_lora_rank + m.qk_rope_head_dim))
        ops.append(proj("kv_b_proj", m.kv_lora_rank, spec.heads * (m.qk_nope_head_dim + m.v_head_dim) // tp))
        return ops
    ops = [
        proj("q_proj", spec.hidden, spec.q_dim // tp),
        proj("k_proj", spec.hidden, kv_heads * spec.head_dim),
        proj("v_proj", spec.hidden, kv_heads * spec.head_dim),
    ]
    if spec.qk_norm:
        ops.append(
            Op(
                "qk_norm",
                "norm",
                spec.layers,
                cost("norm", tokens=w.tokens * (heads + kv_heads), width=spec.head_dim, kind=spec.norm, act_bytes=a),
                "norm",
            )
        )
    return ops


def _feed_forward(spec: ModelSpec, w: Workload, proj, a: float, wb: float, grouped: bool) -> list[Op]:  # type: ignore[no-untyped-def]
    tp = w.tp
    t = w.tokens
    dense_layers = spec.layers - spec.moe_layers
    ops: list[Op] = []

    def mlp(prefix: str, width: int, count: int, group: str, tokens: object = None) -> list[Op]:
        local = math.ceil(width / tp)
        tok = t if tokens is None else tokens
        out = [proj(f"{prefix}gate_proj", spec.hidden, local, count, tok, group)] if spec.gated_mlp else []
        out.append(proj(f"{prefix}up_proj", spec.hidden, local, count, tok, group))
        out.append(
            Op(
                f"{prefix}act",
                "activation",
                count,
                cost(
                    "activation", tokens=tok, width=local, activation=spec.activation, gated=spec.gated_mlp, act_bytes=a
                ),
                group,
            )
        )
        out.append(proj(f"{prefix}down_proj", local, spec.hidden, count, tok, group))
        return out

    if dense_layers:
        ops += mlp("", spec.ffn, dense_layers, "mlp")
    if spec.moe and spec.moe_layers:
        moe = spec.moe
        n_moe = spec.moe_layers
        ops.append(proj("router", spec.hidden, moe.experts, n_moe, group="moe"))
        local = math.ceil(moe.expert_ffn / tp)
        shape = {
            "tokens": t,
            "experts": moe.experts,
            "top_k": moe.top_k,
            "weight_bytes_per_elt": wb,
            "act_bytes_per_elt": a,
            "group_size": w.quant_group_size,
            "grouped_scales": grouped,
        }
        gate_up = 2 if spec.gated_mlp else 1
        ops.append(
            Op(
                "experts_gate_up",
                "grouped_gemm",
                n_moe,
                cost("grouped_gemm", k=spec.hidden, n=gate_up * local, **shape),
                "moe",
            )
        )
        ops.append(
            Op(
                "experts_act",
                "activation",
                n_moe,
                cost(
                    "activation",
                    tokens=t * moe.top_k,
                    width=local,
                    activation=spec.activation,
                    gated=spec.gated_mlp,
                    act_bytes=a,
                ),
                "moe",
            )
        )
        ops.append(
            Op("experts_down", "grouped_gemm", n_moe, cost("grouped_gemm", k=local, n=spec.hidden, **shape), "moe")
        )
        if moe.shared_experts:
            ops += mlp("shared_", moe.shared_experts * (moe.shared_ffn or moe.expert_ffn), n_moe, "moe")
    return ops
