"""ModelSpec × Workload → the operators of one step, per GPU, with their costs.

Tensor parallelism shards heads, KV heads, MLP width and vocabulary across ``tp`` GPUs
(Megatron style); norms, embeddings and MLA's down-projections are replicated. Costs are per
GPU; two all-reduces per layer cross the link. When kv_heads < tp each GPU keeps one KV head.
The lm_head runs on the last position of each sequence only (as serving engines do), so prefill
pays it once per sequence, not once per prompt token.

Layers differ by token mixer (``spec.mixers``): attention operators are counted once per
attention layer, with their own ``_swa`` / ``_chunk`` score, softmax and value for sliding-window
and chunked layers; gated DeltaNet, Mamba and short-convolution layers get their operators from
``analytic/hybrid.py``, Gemma's per-layer inputs, AltUp and LAuReL theirs from
``analytic/gemma_blocks.py``. Feed-forwards are counted per kind (dense, MoE, none). DeepSeek sparse
attention (``spec.indexer``: DeepSeek-V3.2, GLM-5) adds the indexer's operators and bounds the
attention like a window of ``topk`` keys (each query attends to its top-k; the cache keeps every
token; a prefill reads each cached key once, the union of the queries' sets).
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from rooftop.analytic import gemma_blocks, hybrid
from rooftop.analytic.cost import Array, OpCost
from rooftop.analytic.ops.gemm import GROUP_SCALE_BYTES
from rooftop.analytic.registry import OpKind, cost
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.dtypes import dtype
from rooftop.errors import WorkloadError
from rooftop.models.spec import ATTENTION_MIXERS, DENSE_MOE, PARALLEL, WINDOW_SUFFIXES, ModelSpec

WEIGHT_ONLY_QUANT = tuple(GROUP_SCALE_BYTES)  # int8, int4, fp4


class Op(msgspec.Struct, frozen=True):
    """One operator of the step: ``count`` identical occurrences (usually one per layer)."""

    name: str
    kind: OpKind
    count: int
    cost: OpCost
    group: str  # attention | mlp | moe | norm | embedding | head | comm


def decompose(spec: ModelSpec, w: Workload) -> list[Op]:
    """The operators of one prefill or decode step of ``spec`` under ``w``, per GPU."""
    for heads in {spec.heads, *(a.heads for _, a in spec.attention_shapes)} if spec.attention_layers else ():
        if heads % w.tp:  # a Mamba-only model has no attention heads to split (its heads are a placeholder)
            raise WorkloadError(f"tp={w.tp} does not divide {spec.name}'s {heads} attention heads")
    step = _Step(spec, w)
    recurrent = (hybrid.linear_attention, hybrid.state_space, hybrid.short_conv, hybrid.rg_lru)
    mixers = [*step.attention(), *(op for ops in recurrent for op in ops(step))]
    ops = [*step.embedding(), *mixers, *step.feed_forward(), *gemma_blocks.per_layer_inputs(step)]
    ops += [*gemma_blocks.altup_laurel(step), *step.head()]
    return [op for op in ops if op.count > 0]


class _Step:
    """The shapes of one step, per GPU, and one method per block of the model."""

    def __init__(self, spec: ModelSpec, w: Workload) -> None:
        self.spec, self.workload, self.tp, self.layers = spec, w, w.tp, spec.layers
        self.act = dtype(w.act_dtype).bytes
        self.kv = dtype(w.kv_dtype).bytes
        self.weight, self.scales = dtype(w.weight_dtype).bytes, self._scale_bytes(w.weight_dtype)
        experts = w.experts_weight_dtype
        self.expert_weight, self.expert_scales = dtype(experts).bytes, self._scale_bytes(experts)
        self.tokens: Array = w.tokens

    def _scale_bytes(self, weights: str) -> float:
        """One group's scale bytes of weight-only ``weights`` dequantised for the GEMM (0: none)."""
        return GROUP_SCALE_BYTES.get(weights, 0.0) if self.workload.compute not in WEIGHT_ONLY_QUANT else 0.0

    # ---- building blocks ---------------------------------------------------------------
    def op(self, name: str, kind: OpKind, count: int, group: str, /, **shapes: Any) -> Op:
        """``count`` occurrences of operator ``name``, costed by the formula registered for ``kind``."""
        return Op(name, kind, count, cost(kind, **shapes), group)

    def gemm(
        self, name: str, k: int, n: int, count: int | None = None, tokens: Any = None, group: str = "attention"
    ) -> Op:
        """A projection [tokens, k] @ [k, n] (tokens defaults to every token of the step)."""
        return self.op(
            name,
            OpKind.GEMM,
            self.layers if count is None else count,
            group,
            tokens=self.tokens if tokens is None else tokens,
            k=k,
            n=n,
            **self._weights(),
        )

    def _weights(self, experts: bool = False) -> dict[str, Any]:
        """The weight and activation widths every (grouped) GEMM takes; ``experts``: the routed experts' weights."""
        return {
            "weight_bytes_per_elt": self.expert_weight if experts else self.weight,
            "act_bytes_per_elt": self.act,
            "group_size": self.workload.quant_group_size,
            "scale_bytes": self.expert_scales if experts else self.scales,
        }

    def norm(self, name: str, count: int, width: int | None = None, tokens: Any = None) -> Op:
        """A norm over ``width`` features (the hidden size by default)."""
        return self.op(
            name,
            OpKind.NORM,
            count,
            "norm",
            tokens=self.tokens if tokens is None else tokens,
            width=width or self.spec.hidden,
            kind=self.spec.norm,
            act_bytes=self.act,
        )

    def all_reduce(self, name: str, count: int) -> list[Op]:
        """A tensor-parallel all-reduce of the hidden state after ``count`` blocks (none at tp=1)."""
        if self.tp == 1:
            return []
        shapes = {"tokens": self.tokens, "width": self.spec.hidden, "act_bytes": self.act, "tp": self.tp}
        return [self.op(name, OpKind.ALL_REDUCE, count, "comm", **shapes)]

    def mlp(self, prefix: str, width: int, count: int, group: str, tokens: Any = None) -> list[Op]:
        """Gate (when gated), up, activation and down of one dense MLP of ``width``."""
        local = math.ceil(width / self.tp)
        tok = self.tokens if tokens is None else tokens
        s = self.spec
        ops = [self.gemm(f"{prefix}gate_proj", s.hidden, local, count, tok, group)] if s.gated_mlp else []
        ops.append(self.gemm(f"{prefix}up_proj", s.hidden, local, count, tok, group))
        ops.append(self.activation(f"{prefix}act", count, group, tok, local))
        if s.mlp_norm:  # BitNet's ffn_sub_norm
            ops.append(self.norm(f"{prefix}mlp_norm", count, local, tok))
        ops.append(self.gemm(f"{prefix}down_proj", local, s.hidden, count, tok, group))
        return ops

    def activation(self, name: str, count: int, group: str, tokens: Any, width: int) -> Op:
        """The MLP activation (times the gate when gated) over ``width`` features."""
        s = self.spec
        shapes = {"activation": s.activation, "gated": s.gated_mlp, "act_bytes": self.act}
        return self.op(name, OpKind.ACTIVATION, count, group, tokens=tokens, width=width, **shapes)

    # ---- blocks ------------------------------------------------------------------------------
    def embedding(self) -> list[Op]:
        """Token (and learned position) embedding gathers."""
        s = self.spec
        tables = 2 if s.learned_positions else 1
        shapes = {"width": s.hidden, "weight_bytes_per_elt": self.weight, "act_bytes": self.act}
        ops = [self.op("embed", OpKind.EMBEDDING, 1, "embedding", tokens=self.tokens, tables=tables, **shapes)]
        if s.embed_width:  # OPT-350m: narrower token embeddings, projected to the hidden width
            ops.append(self.gemm("project_in", s.embed_width, s.hidden, 1, group="embedding"))
        return ops

    def attention(self) -> list[Op]:
        """Norm, projections, KV append, score/softmax/value per window kind, output projection, all-reduce.

        Layer kinds with a shape of their own (``spec.attention_shapes``) get their own
        projections, suffixed like their attention (``q_proj_swa``); KV-shared layers project
        queries only and append nothing.
        """
        s, n = self.spec, self.spec.attention_layers
        ops = [self.norm("attn_norm", self.layers)]
        if not n:
            return [*ops, *self.all_reduce("tp_allreduce_attn", self.layers - s.count_mixers("none"))]
        groups = self._projection_groups()
        for suffix, layers in groups:
            ops += self._mla_projections() if s.mla else self._qkv_projections(suffix, layers)
        ops += self._indexer(s.indexer_layers)
        for suffix, kinds, bound in (
            ("", ("full", PARALLEL), {"window": s.indexer.topk} if s.indexer else {}),
            ("_swa", ("sliding",), {"window": s.window}),
            ("_chunk", ("chunked",), {"chunk": s.chunk}),
        ):
            ops += self._attention_core(suffix, [i for i in range(s.layers) if s.mixer(i) in kinds], bound)
        for suffix, layers in groups:
            a = s.attention(layers[0])
            o_in = s.heads * s.mla.v_head_dim if s.mla else a.o_dim
            if s.head_gate:  # Ling's hybrid: one sigmoid gate per head, from the hidden state
                ops.append(self.gemm(f"head_gate{suffix}", s.hidden, math.ceil(a.heads / self.tp), len(layers)))
            ops.append(self.gemm(f"o_proj{suffix}", o_in // self.tp, s.hidden, len(layers)))
        return [*ops, *self.all_reduce("tp_allreduce_attn", self.layers - s.count_mixers("none"))]

    def _projection_groups(self) -> list[tuple[str, list[int]]]:
        """Attention layers that share projection shapes, with their op-name suffix.

        One group, unless layer kinds have shapes of their own (then one per kind).
        """
        s = self.spec
        layers = [i for i in range(s.layers) if s.mixer(i) in ATTENTION_MIXERS]
        if not s.attention_shapes:
            return [("", layers)]
        by_suffix: dict[str, list[int]] = {}
        for i in layers:
            by_suffix.setdefault(WINDOW_SUFFIXES[s.mixer(i)], []).append(i)
        return list(by_suffix.items())

    def _attention_core(self, suffix: str, layers: list[int], bound: dict[str, int]) -> list[Op]:
        """Score, softmax and value of ``layers`` (one kind) whose keys are bounded by ``bound`` (window or chunk)."""
        if not layers:
            return []
        w, n = self.workload, len(layers)
        qk_dim, v_dim, kv_heads, reads_v = self._attention_dims(layers[0])
        shape = {
            "batch": w.batch,
            "new": w.new_tokens,
            "past": w.past_tokens,
            "heads": self.spec.attention(layers[0]).heads / self.tp,
            "act_bytes": self.act,
            "impl": w.attention,
            "causal": w.causal,
            **bound,
        }
        kv = {"kv_heads": kv_heads, "kv_bytes": self.kv}
        return [
            self.op(f"attn_score{suffix}", OpKind.ATTN_SCORE, n, "attention", **shape, **kv, qk_dim=qk_dim),
            self.op(f"softmax{suffix}", OpKind.SOFTMAX, n, "attention", **shape),
            self.op(
                f"attn_value{suffix}", OpKind.ATTN_VALUE, n, "attention", **shape, **kv, v_dim=v_dim, reads_v=reads_v
            ),
        ]

    def _indexer(self, n: int) -> list[Op]:
        """DeepSeek sparse attention's indexer in the ``n`` layers that run one: projections, key append, scores.

        Each query scores every cached index key (one per token, ``head_dim`` wide, shared by its
        ``heads``): the causal pairs of full attention, at 2 · heads · head_dim FLOPs each. The top-k
        selection over the logits is not counted. The indexer is small and replicated across
        tensor-parallel GPUs (as vLLM runs it); the MLA attention after it is bounded by ``topk``.
        """
        idx, m, w = self.spec.indexer, self.spec.mla, self.workload
        if idx is None or m is None:
            return []
        append = {"tokens": self.tokens, "act_bytes": self.act, "kv_bytes": self.kv, "elements_per_token": idx.head_dim}
        score = {"batch": w.batch, "new": w.new_tokens, "past": w.past_tokens, "heads": idx.heads, "kv_heads": 1}
        score |= {
            "qk_dim": idx.head_dim,
            "act_bytes": self.act,
            "kv_bytes": self.kv,
            "impl": "flash",
            "causal": w.causal,
        }
        return [
            self.gemm("index_q_proj", m.q_lora_rank or 0, idx.heads * idx.head_dim, n),
            self.gemm("index_k_proj", self.spec.hidden, idx.head_dim, n),
            self.gemm("index_weights_proj", self.spec.hidden, idx.heads, n),
            self.op("index_k_append", OpKind.KV_APPEND, n, "attention", **append),
            self.op("index_score", OpKind.ATTN_SCORE, n, "attention", **score),
        ]

    def _qkv_projections(self, suffix: str, layers: list[int]) -> list[Op]:
        """q, k, v (none under k_eq_v), q/k norms and the KV append of ``layers``, which share a shape."""
        s, n, a = self.spec, len(layers), self.spec.attention(layers[0])
        own = sum(not s.is_kv_shared(i) for i in layers)  # layers with K/V of their own
        heads, kv_heads = a.heads / self.tp, math.ceil(a.kv_heads / self.tp)
        q_out = a.q_dim * (2 if s.attn_output_gate else 1) // self.tp  # Qwen3-Next: query and its gate
        ops = [self.gemm(f"q_proj{suffix}", s.hidden, q_out, n)]
        ops.append(self.gemm(f"k_proj{suffix}", s.hidden, kv_heads * a.head_dim, own))
        if not a.k_eq_v:  # Gemma 4's full layers: the keys' projection gives the values too
            ops.append(self.gemm(f"v_proj{suffix}", s.hidden, kv_heads * a.v_head_dim, own))
        if s.qk_norm:
            ops.append(self.norm(f"qk_norm{suffix}", own, a.head_dim, self.tokens * (heads + kv_heads)))
            ops.append(self.norm(f"q_norm{suffix}", n - own, a.head_dim, self.tokens * heads))
        per_token = float(kv_heads * (a.head_dim + a.v_head_dim))
        append = {"tokens": self.tokens, "act_bytes": self.act, "kv_bytes": self.kv, "elements_per_token": per_token}
        return [*ops, self.op(f"kv_append{suffix}", OpKind.KV_APPEND, own, "attention", **append)]

    def _mla_projections(self) -> list[Op]:
        s = self.spec
        assert s.mla is not None
        m = s.mla
        q_out = s.heads * (m.qk_nope_head_dim + m.qk_rope_head_dim) // self.tp
        if m.q_lora_rank:
            ops = [self.gemm("q_a_proj", s.hidden, m.q_lora_rank), self.gemm("q_b_proj", m.q_lora_rank, q_out)]
        else:
            ops = [self.gemm("q_proj", s.hidden, q_out)]
        ops.append(self.gemm("kv_a_proj", s.hidden, m.kv_lora_rank + m.qk_rope_head_dim))
        ops.append(self.gemm("kv_b_proj", m.kv_lora_rank, s.heads * (m.qk_nope_head_dim + m.v_head_dim) // self.tp))
        latent = float(m.kv_lora_rank + m.qk_rope_head_dim)
        append = {"tokens": self.tokens, "act_bytes": self.act, "kv_bytes": self.kv, "elements_per_token": latent}
        return [*ops, self.op("kv_append", OpKind.KV_APPEND, s.attention_layers, "attention", **append)]

    def _attention_dims(self, layer: int) -> tuple[int, int, float, bool]:
        """(qk_dim, v_dim, KV heads read, whether V is a separate read) of the attention kernel.

        MLA decode runs in the absorbed form (FlashMLA, vLLM): every head attends to the one cached
        latent of width kv_lora + rope, read once. MLA prefill runs in the expanded form (qk = nope +
        rope, v = v_head_dim), as vLLM does; its KV bytes are still the latent's, expressed as a
        fractional "head count" so that kv_heads × qk_dim = latent width.
        """
        s = self.spec
        if not s.mla:
            a = s.attention(layer)
            return a.head_dim, a.v_head_dim, float(math.ceil(a.kv_heads / self.tp)), True
        m = s.mla
        latent = m.kv_lora_rank + m.qk_rope_head_dim
        if self.workload.phase is Phase.DECODE:
            return latent, m.kv_lora_rank, 1.0, False
        qk = m.qk_nope_head_dim + m.qk_rope_head_dim
        return qk, m.v_head_dim, latent / qk, False

    def feed_forward(self) -> list[Op]:
        """Norms, the dense MLP layers and the MoE layers (router, routed and shared experts)."""
        s = self.spec
        ops = [self.norm("ffn_norm", self.layers)] if s.norms_per_layer >= 2 else []
        if s.norms_per_layer > 2:
            ops.append(self.norm("extra_norms", self.layers * (s.norms_per_layer - 2)))
        widths: dict[int, int] = {}  # dense MLP width -> layers (Gemma 4's KV-shared layers are twice as wide)
        for i in range(s.layers):
            if s.ffn_kind(i) in ("dense", DENSE_MOE):
                widths[s.ffn_width(i)] = widths.get(s.ffn_width(i), 0) + 1
        # one width: gate_proj...; two: gate_proj and wide_gate_proj; more (Gemma 3n's MatFormer
        # slices): mlp8192_gate_proj, mlp16384_gate_proj...
        for k, (width, count) in enumerate(sorted(widths.items())):
            prefix = ("", "wide_")[k] if len(widths) <= 2 else f"mlp{width}_"
            ops += self.mlp(prefix, width, count, "mlp")
        if s.moe and s.moe_layers:
            ops += self._experts()
        return [*ops, *self.all_reduce("tp_allreduce_mlp", self.layers - s.count_ffns("none"))]

    def _experts(self) -> list[Op]:
        s = self.spec
        assert s.moe is not None
        moe, n = s.moe, s.moe_layers
        local = math.ceil(moe.expert_ffn / self.tp)
        shape = {"tokens": self.tokens, "experts": moe.experts, "top_k": moe.active_k, **self._weights(experts=True)}
        gate_up = 2 if s.gated_mlp else 1
        ops = [
            self.gemm("router", s.hidden, moe.experts + moe.zero_experts, n, group="moe"),
            self.op("experts_gate_up", OpKind.GROUPED_GEMM, n, "moe", k=s.hidden, n=gate_up * local, **shape),
            self.activation("experts_act", n, "moe", self.tokens * moe.active_k, local),
            self.op("experts_down", OpKind.GROUPED_GEMM, n, "moe", k=local, n=s.hidden, **shape),
        ]
        if moe.expert_norm:  # Ergo: an RMSNorm on each routed expert's output, before the weighted sum
            ops.append(self.norm("experts_norm", n, tokens=self.tokens * moe.active_k))
        if moe.shared_experts:
            ops += self.mlp("shared_", moe.shared_experts * (moe.shared_ffn or moe.expert_ffn), n, "moe")
        if moe.shared_gate:  # Qwen-MoE: sigmoid(x · w) scales the shared expert
            ops.append(self.gemm("shared_gate", s.hidden, 1, n, group="moe"))
        if moe.post_norm:  # an RMSNorm on the MoE block's output (A.X K1) or its shared expert's (Ergo)
            ops.append(self.norm("moe_post_norm", n))
        return ops

    def head(self) -> list[Op]:
        """Final norm and the lm_head on the last position of each sequence (every position at decode).

        A decode step normally has one position per sequence; a speculative verify step needs the
        logits of all k + 1 positions, so at decode the lm_head runs on every token of the step.
        """
        w = self.workload
        last = self.tokens if w.phase is Phase.DECODE else w.batch + 0 * w.new_tokens
        s = self.spec
        vocab = math.ceil(s.vocab / self.tp)
        ops = [self.norm("final_norm", 1)] if s.final_norm else []
        if s.embed_width:  # OPT-350m: back to the embeddings' width, the decoder's last step (every position)
            ops.append(self.gemm("project_out", s.hidden, s.embed_width, 1, group="head"))
        return [*ops, self.gemm("lm_head", s.embed_width or s.hidden, vocab, 1, last, "head")]
