"""ModelSpec: the frozen shape of a decoder-only transformer, with derived fields in one place.

Covers dense and MoE decoders (shared experts, dense layers anywhere, expert biases, post-norms),
MLA, tied embeddings, learned positions, LayerNorm/RMSNorm, gated/plain MLPs, biases, q/k norms,
sinks and output gates; per-layer token mixers (full, sliding, chunked attention, gated DeltaNet,
KDA, Mamba, LFM2's short convolution: ``mixers``) and feed-forward kinds (``ffns``; Gemma 4 runs a dense MLP beside its
experts); per-kind attention shapes (``attention_shapes``: Gemma 4, MiMo-V2), layers reading an
earlier layer's KV cache (``kv_shared_layers``), per-layer inputs (``per_layer_input``) and Gemma
3n's AltUp streams and LAuReL residuals (``altup_inputs``, ``laurel_rank``).
"""

from __future__ import annotations

from functools import cached_property

import msgspec

from rooftop.errors import SpecError
from rooftop.models.mixers import (
    MLA,
    RGLRU,
    AttentionShape,
    Indexer,
    KVGroup,
    LinearAttention,
    ShortConv,
    StateSpace,
)
from rooftop.models.quantization import StoredWeights

PARALLEL = "full+mamba"  # Falcon-H1: attention and a Mamba mixer side by side in every layer
ATTENTION_MIXERS = ("full", "sliding", "chunked", PARALLEL)
MAMBA_MIXERS = ("mamba", PARALLEL)
MIXERS = (*ATTENTION_MIXERS, "linear", "mamba", "conv", "rglru", "none")
DENSE_MOE = "dense+moe"  # Gemma 4: a dense MLP and the routed experts side by side, outputs summed
MOE_FFNS = ("moe", DENSE_MOE)
FFNS = ("dense", "moe", DENSE_MOE, "none")
WINDOW_SUFFIXES = {"full": "", PARALLEL: "", "sliding": "_swa", "chunked": "_chunk"}


class MoE(msgspec.Struct, frozen=True):
    """Mixture-of-experts feed-forward: ``experts`` routed experts, ``top_k`` per token."""

    experts: int
    top_k: int
    expert_ffn: int
    shared_experts: int = 0
    shared_ffn: int = 0  # per shared expert; defaults to expert_ffn
    dense_layers: tuple[int, ...] = ()  # layers that use the dense FFN instead
    router_bias: bool = False  # DeepSeek's e_score_correction_bias, gpt-oss's router bias
    expert_bias: bool = False  # gpt-oss: gate_up and down biases per expert
    shared_gate: bool = False  # Qwen-MoE: a sigmoid gate (hidden -> 1) on the shared expert
    post_norm: bool = False  # an RMSNorm on the MoE block's output (A.X K1) or its shared expert's (Ergo)
    expert_norm: bool = False  # Ergo: an RMSNorm on each routed expert's output (experts x hidden weights)
    router_scales: bool = False  # Gemma 4: a learned scale per input feature and one per expert
    zero_experts: int = 0  # LongCat-Flash: identity experts the router may pick (no weights, no FLOPs)

    @property
    def active_k(self) -> float:
        """Experts with weights one token runs: top_k less the slots zero-computation experts take.

        Under uniform routing a slot picks one of the ``experts`` with probability experts /
        (experts + zero_experts): LongCat-Flash's 12 slots over 512 + 256 run 8 experts, the
        ~27 B its paper gives as the average activated. Without zero experts, top_k.
        """
        return self.top_k * self.experts / (self.experts + self.zero_experts)

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {k: getattr(self, k) for k in ("experts", "top_k", "expert_ffn", "shared_experts")}
        out["dense_layers"] = list(self.dense_layers)
        if self.zero_experts:  # LongCat-Flash: what the router may pick beside the experts
            out |= {"zero_experts": self.zero_experts, "active_k": self.active_k}
        return out


class ModelSpec(msgspec.Struct, frozen=True, dict=True):
    """Shape of a decoder-only transformer. ``head_dim`` 0 means hidden / heads."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    head_dim: int = 0
    tied_embeddings: bool = False
    max_positions: int = 0
    norm: str = "rms"  # "rms" | "layer" (LayerNorm has a bias)
    norm_bias: bool = True  # LayerNorm bias (Cohere's LayerNorms have none)
    norm_affine: bool = True  # norms with a weight (OLMo-1's LayerNorms have none)
    gated_mlp: bool = True  # SwiGLU/GeGLU: gate, up, down; else up, down
    mlp_norm: bool = False  # BitNet: a norm over the MLP's intermediate width before down_proj
    activation: str = "silu"
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    qk_norm: bool = False
    qk_norm_full: bool = False  # OLMo-2/3: q/k norms over all heads (q_dim, kv_dim), not head_dim
    qk_norm_bias: bool = False  # Persimmon: its q/k norms are LayerNorms with a bias
    norms_per_layer: int = 2
    learned_positions: bool = False
    position_offset: int = 0  # OPT, BioGPT: their learned table has max_positions + 2 rows
    embed_width: int = 0  # OPT-350m: token embeddings of another width, projected in and out; 0: hidden
    final_norm: bool = True  # OPT's post-norm models (do_layer_norm_before false) have none
    lm_head_bias: bool = False
    embed_norm: bool = False  # BLOOM: a LayerNorm right after the embedding
    attn_sinks: bool = False  # gpt-oss: one learned sink logit per head
    attn_output_gate: bool = False  # Qwen3-Next/3.5: q_proj also emits a sigmoid gate per head
    attn_gate_bias: bool = False  # Beam: that gate has one bias per head
    head_gate: bool = False  # Ling's hybrid: one sigmoid gate per head from the hidden state (hidden -> heads)
    moe: MoE | None = None
    mla: MLA | None = None
    indexer: Indexer | None = None  # DeepSeek sparse attention: each query attends to its top-k keys
    mixers: tuple[str, ...] = ()  # per layer; empty: every layer is full attention
    ffns: tuple[str, ...] = ()  # per layer; empty: dense, or MoE outside moe.dense_layers
    window: int = 0  # sliding-window size of the "sliding" layers
    chunk: int = 0  # chunk size of the "chunked" layers (Llama-4)
    linear: LinearAttention | None = None
    ssm: StateSpace | None = None
    conv: ShortConv | None = None  # LFM2's "conv" layers
    rglru: RGLRU | None = None  # RecurrentGemma's recurrent layers
    attention_shapes: tuple[tuple[str, AttentionShape], ...] = ()  # (mixer kind, its shape) where it has its own
    kv_shared_layers: int = 0  # the last N layers attend over an earlier layer's cache: no K/V projections
    kv_shared_ffn: int = 0  # MLP width of those layers (Gemma 4's use_double_wide_mlp); 0: ffn
    ffn_widths: tuple[int, ...] = ()  # per layer (Gemma 3n's MatFormer slices); empty: ffn everywhere
    per_layer_input: int = 0  # Gemma 4's per-layer inputs: p features per layer from a packed table
    per_layer_vocab: int = 0  # rows of that table
    altup_inputs: int = 0  # Gemma 3n's AltUp: the hidden state kept as n streams, one run by each layer
    laurel_rank: int = 0  # Gemma 3n's LAuReL: a low-rank residual (hidden -> rank -> hidden) in every layer
    vision_params: int = 0  # the vision tower and projector, Gemma 3n's audio tower too (the text path is analysed)
    idle_params: int = 0  # text-model weights a text-only request never runs (mllama's cross-attention layers)
    stored: StoredWeights | None = None  # the dtypes the checkpoint stores its weights in (its quantization_config)
    source: str = ""
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("layers", "hidden", "heads", "kv_heads", "vocab"):
            if getattr(self, name) < 1:
                raise SpecError(f"{self.name}: {name} must be ≥ 1, got {getattr(self, name)}")
        if self.ffn < 0:
            raise SpecError(f"{self.name}: ffn must be ≥ 0")
        if self.heads % self.kv_heads:
            raise SpecError(f"{self.name}: heads ({self.heads}) must be a multiple of kv_heads ({self.kv_heads})")
        if not self.head_dim:
            if self.hidden % self.heads:
                raise SpecError(f"{self.name}: hidden ({self.hidden}) is not divisible by heads ({self.heads})")
            msgspec.structs.force_setattr(self, "head_dim", self.hidden // self.heads)
        if self.moe and not 1 <= self.moe.top_k <= self.moe.experts + self.moe.zero_experts:
            raise SpecError(f"{self.name}: top_k must be in 1..experts")
        self._check_layers()

    def _check_layers(self) -> None:
        for what, values, allowed in (("mixers", self.mixers, MIXERS), ("ffns", self.ffns, FFNS)):
            if values and len(values) != self.layers:
                raise SpecError(f"{self.name}: {len(values)} {what} for {self.layers} layers")
            if bad := sorted(set(values) - set(allowed)):
                raise SpecError(f"{self.name}: unknown {what} {bad}")
        if "sliding" in self.mixers and self.window < 1:
            raise SpecError(f"{self.name}: sliding layers need a window ≥ 1")
        if "chunked" in self.mixers and self.chunk < 1:
            raise SpecError(f"{self.name}: chunked layers need a chunk ≥ 1")
        if "linear" in self.mixers and not self.linear:
            raise SpecError(f"{self.name}: linear-attention layers need their shape")
        if set(MAMBA_MIXERS) & set(self.mixers) and not self.ssm:
            raise SpecError(f"{self.name}: Mamba layers need their shape")
        if "conv" in self.mixers and not self.conv:
            raise SpecError(f"{self.name}: short-convolution layers need their shape")
        if "rglru" in self.mixers and not (self.rglru and self.rglru.width % self.rglru.heads == 0):
            raise SpecError(f"{self.name}: RG-LRU layers need a width divisible by their heads")
        if set(MOE_FFNS) & set(self.ffns) and not self.moe:
            raise SpecError(f"{self.name}: MoE layers need experts")
        if self.indexer and not (self.mla and self.mla.q_lora_rank):
            raise SpecError(f"{self.name}: a DSA indexer reads MLA's compressed query (q_lora_rank)")
        for kind, a in self.attention_shapes:
            wrong = min(a.heads, a.kv_heads, a.head_dim, a.v_head_dim) < 1 or a.heads % a.kv_heads
            if kind not in ATTENTION_MIXERS or wrong:
                raise SpecError(f"{self.name}: bad {kind!r} attention shape {a}")
        if self.mla and self.attention_shapes:
            raise SpecError(f"{self.name}: MLA layers have one shape")
        if not 0 <= self.kv_shared_layers < self.layers:
            raise SpecError(f"{self.name}: kv_shared_layers must be in 0..layers - 1")
        if self.ffn_widths and (len(self.ffn_widths) != self.layers or min(self.ffn_widths) < 0):
            raise SpecError(f"{self.name}: {len(self.ffn_widths)} MLP widths for {self.layers} layers")
        if self.altup_inputs == 1 or self.altup_inputs < 0:
            raise SpecError(f"{self.name}: AltUp needs ≥ 2 streams (altup_num_inputs is {self.altup_inputs})")
        if self.laurel_rank < 0:
            raise SpecError(f"{self.name}: laurel_rank must be ≥ 0, got {self.laurel_rank}")

    # ---- derived shapes -------------------------------------------------------------------
    @property
    def q_dim(self) -> int:
        """Width of the query projection output (of the layers without a shape of their own)."""
        if self.mla:
            return self.heads * (self.mla.qk_nope_head_dim + self.mla.qk_rope_head_dim)
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of one of the K or V projections (GQA: kv_heads × head_dim)."""
        return self.kv_heads * self.head_dim

    def mixer(self, layer: int) -> str:
        """The token mixer of ``layer``: one of MIXERS (full, sliding, chunked, linear, mamba, conv...)."""
        return self.mixers[layer] if self.mixers else "full"

    def attention(self, layer: int) -> AttentionShape:
        """Heads and widths of ``layer``'s attention: its kind's own shape, else the model's."""
        kind = self.mixer(layer)
        for name, shape in self.attention_shapes:
            if name == kind:
                return shape
        return AttentionShape(self.heads, self.kv_heads, self.head_dim, sinks=self.attn_sinks)

    def is_kv_shared(self, layer: int) -> bool:
        """Whether ``layer`` attends over an earlier layer's cache (no K/V of its own)."""
        return layer >= self.layers - self.kv_shared_layers

    def ffn_kind(self, layer: int) -> str:
        """The feed-forward of ``layer``: dense | moe | dense+moe | none."""
        if self.ffns:
            return self.ffns[layer]
        return "moe" if self.moe is not None and layer not in self.moe.dense_layers else "dense"

    def ffn_width(self, layer: int) -> int:
        """Intermediate width of ``layer``'s dense MLP."""
        if self.ffn_widths:
            return self.ffn_widths[layer]
        return self.kv_shared_ffn if self.kv_shared_ffn and self.is_kv_shared(layer) else self.ffn

    @property
    def widest_ffn(self) -> int:
        """The widest dense MLP of any layer."""
        return max(self.ffn, self.kv_shared_ffn, *self.ffn_widths)

    def is_moe_layer(self, layer: int) -> bool:
        """Whether ``layer`` uses routed experts."""
        return self.ffn_kind(layer) in MOE_FFNS

    @property
    def moe_layers(self) -> int:
        """How many layers route to experts."""
        return sum(self.is_moe_layer(i) for i in range(self.layers))

    def count_mixers(self, *kinds: str) -> int:
        """How many layers have one of these token mixers."""
        return sum(self.mixer(i) in kinds for i in range(self.layers))

    def count_ffns(self, *kinds: str) -> int:
        """How many layers have one of these feed-forward kinds."""
        return sum(self.ffn_kind(i) in kinds for i in range(self.layers))

    @property
    def attention_layers(self) -> int:
        """Layers with softmax attention (full, sliding or chunked)."""
        return self.count_mixers(*ATTENTION_MIXERS)

    # ---- KV cache and recurrent state ------------------------------------------------------
    @property
    def kv_elements_per_layer_token(self) -> int:
        """KV elements per token in layer 0, of the model's own shape (K and V, or MLA's latent + DSA's index key)."""
        return self.layer_kv_elements(0)

    def layer_kv_elements(self, layer: int) -> int:
        """KV elements per token of ``layer`` in the model's own shape (MLA: an index key only with its own indexer)."""
        if self.mla:
            index_key = self.indexer.head_dim if self.indexer and self.runs_indexer(layer) else 0
            return self.mla.kv_lora_rank + self.mla.qk_rope_head_dim + index_key
        return 2 * self.kv_heads * self.head_dim

    def runs_indexer(self, layer: int) -> bool:
        """Whether ``layer`` has a DSA indexer of its own (not one that reuses an earlier layer's top-k)."""
        return self.indexer is not None and layer not in self.indexer.shared

    @property
    def indexer_layers(self) -> int:
        """Attention layers with a DSA indexer of their own."""
        return sum(1 for i in range(self.layers) if self.mixer(i) in ATTENTION_MIXERS and self.runs_indexer(i))

    def kv_groups(self) -> tuple[KVGroup, ...]:
        """The caching attention layers grouped by token bound and per-token size (KV-shared layers cache nothing)."""
        return self._kv_groups

    @cached_property
    def _kv_groups(self) -> tuple[KVGroup, ...]:  # once per spec: sweeps ask for every (batch, context)
        counts: dict[tuple[int, int, int], int] = {}
        for i in range(self.layers):
            kind = self.mixer(i)
            if kind not in ATTENTION_MIXERS or self.is_kv_shared(i):
                continue
            bound = self.window if kind == "sliding" else self.chunk if kind == "chunked" else 0
            a = self.attention(i)  # MLA's latent: kv_heads 0, never split across GPUs
            heads, per_token = (0, self.layer_kv_elements(i)) if self.mla else (a.kv_heads, a.kv_elements_per_token)
            counts[(bound, heads, per_token)] = counts.get((bound, heads, per_token), 0) + 1
        return tuple(KVGroup(bound, n, kv_heads, per_token) for (bound, kv_heads, per_token), n in counts.items())

    @property
    def kv_elements_per_token(self) -> int:
        """KV-cache elements one token stores across all attention layers (no window applied)."""
        return sum(g.layers * g.elements_per_token for g in self.kv_groups())

    def kv_bytes_per_token(self, bytes_per_element: float) -> float:
        """KV bytes one token stores. Llama-2-7B bf16: 32 layers × 2 × 32 heads × 128 × 2 B = 524,288."""
        return self.kv_elements_per_token * bytes_per_element

    def kv_layer_groups(self) -> dict[int, int]:
        """Caching attention layers by the most tokens each caches: {0 (no bound): n_full, window: n, chunk: n}."""
        groups: dict[int, int] = {}
        for g in self.kv_groups():
            groups[g.bound] = groups.get(g.bound, 0) + g.layers
        return groups

    def kv_elements_per_sequence(self, context: float) -> float:
        """KV elements one sequence holds at ``context`` tokens, layer by layer.

        All of them in full layers, at most the window in sliding layers, at most one chunk in
        chunked layers (engines free the rest).
        """
        return sum(g.layers * g.elements_per_token * g.tokens(context) for g in self.kv_groups())

    @property
    def state_elements_per_sequence(self) -> int:
        """Recurrent-state elements one sequence holds (DeltaNet, Mamba, short-conv windows), constant in context."""
        linear = self.count_mixers("linear") * (self.linear.state_elements if self.linear else 0)
        conv = self.count_mixers("conv") * (self.conv.state_elements if self.conv else 0)
        conv += self.count_mixers("rglru") * (self.rglru.state_elements if self.rglru else 0)
        return linear + conv + self.count_mixers(*MAMBA_MIXERS) * (self.ssm.state_elements if self.ssm else 0)

    # ---- parameters ----------------------------------------------------------------------
    def attention_params(self, layer: int = 0) -> int:
        """Parameters of ``layer``'s attention block (projections, biases, q/k norms, sinks)."""
        h = self.hidden
        if self.mla:
            m = self.mla
            qk = m.qk_nope_head_dim + m.qk_rope_head_dim
            if m.q_lora_rank:
                q = h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * self.heads * qk  # q_a, q_a_norm, q_b
            else:
                q = h * self.heads * qk
            kv = h * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank  # kv_a (+ rope key), kv_a_norm
            kv += m.kv_lora_rank * self.heads * (m.qk_nope_head_dim + m.v_head_dim)  # kv_b
            index = self.indexer.params(h, m.q_lora_rank or 0) if self.indexer and self.runs_indexer(layer) else 0
            return q + kv + self.heads * m.v_head_dim * h + index + (h * self.heads if self.head_gate else 0)
        a, own = self.attention(layer), not self.is_kv_shared(layer)
        q_out = a.q_dim * (2 if self.attn_output_gate else 1)
        kv_out = a.k_dim + (0 if a.k_eq_v else a.v_dim) if own else 0
        params = h * (q_out + kv_out) + a.o_dim * h
        if self.qkv_bias:
            params += q_out + kv_out
        if self.o_bias:
            params += h
        if self.qk_norm and self.norm_affine:
            norms = a.q_dim + own * a.k_dim if self.qk_norm_full else (1 + own) * a.head_dim
            params += norms * (2 if self.qk_norm_bias else 1)
        return params + (a.heads if a.sinks else 0) + a.heads * (self.attn_gate_bias + (h if self.head_gate else 0))

    def mixer_params(self, layer: int) -> int:
        """Parameters of the token mixer of ``layer``."""
        kind = self.mixer(layer)
        if kind == "linear" and self.linear:
            return self.linear.params(self.hidden)
        if kind == "conv" and self.conv:
            return self.conv.params()
        if kind == "rglru" and self.rglru:
            return self.rglru.params(self.hidden)
        mamba = self.ssm.params(self.hidden) if kind in MAMBA_MIXERS and self.ssm else 0
        return mamba + (self.attention_params(layer) if kind in ATTENTION_MIXERS else 0)

    def mlp_params(self, width: int, bias: bool | None = None) -> int:
        """Parameters of one dense MLP of intermediate ``width`` (``bias`` defaults to mlp_bias)."""
        mats = 3 if self.gated_mlp else 2
        params = mats * self.hidden * width
        if self.mlp_bias if bias is None else bias:
            params += (mats - 1) * width + self.hidden
        params += width if self.mlp_norm and self.norm_affine else 0
        return params + (2 if self.activation == "xielu" else 0)  # xIELU's learned alpha_p, alpha_n

    def ffn_params(self, layer: int, active: bool = False) -> int:
        """Parameters of one layer's feed-forward; ``active`` counts only top-k + shared experts."""
        kind = self.ffn_kind(layer)
        dense = self.mlp_params(self.ffn_width(layer)) if kind in ("dense", DENSE_MOE) else 0
        if kind not in MOE_FFNS or self.moe is None:
            return dense
        moe = self.moe
        routed = moe.active_k if active else moe.experts
        params = dense + round(routed * self.expert_params)
        params += round(routed * self.hidden) if moe.expert_norm else 0
        params += moe.shared_experts * self.mlp_params(moe.shared_ffn or moe.expert_ffn, bias=False)
        router = moe.experts + moe.zero_experts
        params += self.hidden * router + (router if moe.router_bias else 0)
        params += self.hidden + moe.experts if moe.router_scales else 0
        return params + (self.hidden if moe.shared_gate else 0) + (self.norm_params if moe.post_norm else 0)

    @property
    def expert_params(self) -> int:
        """Parameters of one routed expert (0 without experts)."""
        return self.mlp_params(self.moe.expert_ffn, bias=self.moe.expert_bias) if self.moe else 0

    @property
    def routed_expert_params(self) -> int:
        """Parameters of every routed expert of every MoE layer (what a checkpoint may store apart: gpt-oss's MXFP4)."""
        return self.moe_layers * self.moe.experts * self.expert_params if self.moe else 0

    @property
    def norm_params(self) -> int:
        """Parameters of one norm (LayerNorm has weight and bias, unless the family drops them)."""
        if not self.norm_affine:
            return 0
        return self.hidden * (2 if self.norm == "layer" and self.norm_bias else 1)

    @property
    def embedding_params(self) -> int:
        """Token (and learned position) embedding parameters; OPT-350m's projections in and out."""
        positions = (self.max_positions + self.position_offset) * self.hidden if self.learned_positions else 0
        params = self.vocab * (self.embed_width or self.hidden) + positions + 2 * self.embed_width * self.hidden
        return params + (self.norm_params if self.embed_norm else 0)

    @property
    def per_layer_input_params(self) -> int:
        """Parameters of Gemma 3n's and Gemma 4's per-layer inputs (0 without them).

        The packed table (per_layer_vocab × layers·p), its projection from the hidden state
        (hidden → layers·p) and norm (p), and per layer a gate (hidden → p) and a projection back
        (p → hidden); the norm after it is one of the layer's norms_per_layer.
        """
        p, width = self.per_layer_input, self.layers * self.per_layer_input
        return self.per_layer_vocab * width + self.hidden * width + p + self.layers * 2 * self.hidden * p

    @property
    def altup_laurel_params(self) -> int:
        """Parameters of Gemma 3n's AltUp and LAuReL blocks (0 without them); their norms are in norms_per_layer.

        AltUp, per layer: an output scale (hidden), correction (n -> n) and prediction (n -> n²)
        coefficients, a router (hidden -> n); once, the projections of the embedding to the n - 1
        other streams and back (hidden -> hidden each way). LAuReL, per layer: hidden -> rank -> hidden.
        """
        n, h = self.altup_inputs, self.hidden
        altup = self.layers * (h + n * n + n**3 + h * n) + 2 * (n - 1) * h * h if n else 0
        return altup + self.layers * 2 * h * self.laurel_rank

    @property
    def lm_head_params(self) -> int:
        """Output projection parameters (0 when tied to the embedding; a bias is never tied)."""
        head = 0 if self.tied_embeddings else self.vocab * (self.embed_width or self.hidden)
        return head + (self.vocab if self.lm_head_bias else 0)

    def param_count(self, active: bool = False, text_only: bool = False) -> int:
        """Total parameters; ``text_only``: without the vision tower.

        ``active``: what one text token runs: the top-k experts of each MoE layer, neither the
        vision tower nor the idle weights (as "37B activated" of DeepSeek-V3's 671B, "A3B").
        """
        per_layer = sum(self.ffn_params(i, active) + self.mixer_params(i) for i in range(self.layers))
        per_layer += self.layers * self.norms_per_layer * self.norm_params + self.per_layer_input_params
        per_layer += self.altup_laurel_params
        text = self.embedding_params + per_layer + self.final_norm * self.norm_params + self.lm_head_params
        if active:
            return text
        return text + self.idle_params + (0 if text_only else self.vision_params)

    def describe(self) -> dict[str, object]:
        """Plain dict for JSON and `rooftop models show`."""
        out: dict[str, object] = {
            "name": self.name,
            "layers": self.layers,
            "hidden": self.hidden,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "head_dim": self.head_dim,
            "ffn": self.ffn,
            "vocab": self.vocab,
            "tied_embeddings": self.tied_embeddings,
            "max_positions": self.max_positions,
            "params": self.param_count(),
            "active_params": self.param_count(active=True),
            "kv_elements_per_token": self.kv_elements_per_token,
            "source": self.source,
        }
        if not self.attention_layers:  # Mamba-only: the attention widths are placeholders
            for key in ("heads", "kv_heads", "head_dim"):
                del out[key]
        if self.moe:
            out["moe"] = self.moe.describe()
        if self.mla:
            out["mla"] = self.mla.describe()
        if self.indexer:
            idx = self.indexer
            shared = {"shared_layers": len(idx.shared)} if idx.shared else {}
            out["indexer"] = {"heads": idx.heads, "head_dim": idx.head_dim, "topk": idx.topk} | shared
        if self.mixers:
            out["mixers"] = {kind: self.count_mixers(kind) for kind in MIXERS if self.count_mixers(kind)}
            out |= {"window": self.window} if self.window else {}
            out |= {"chunk": self.chunk} if self.chunk else {}
            out["state_elements_per_sequence"] = self.state_elements_per_sequence
        if self.attention_shapes:
            out["attention_shapes"] = {kind: a.describe() for kind, a in self.attention_shapes}
        out |= {"kv_shared_layers": self.kv_shared_layers} if self.kv_shared_layers else {}
        out |= {"per_layer_input": self.per_layer_input} if self.per_layer_input else {}
        if self.ffn_widths:  # MLP width (a JSON key: text) -> layers, widest first; as "mixers" counts kinds
            out["ffn_layers"] = {str(w): self.ffn_widths.count(w) for w in sorted(set(self.ffn_widths), reverse=True)}
        out |= {"altup_inputs": self.altup_inputs} if self.altup_inputs else {}
        out |= {"laurel_rank": self.laurel_rank} if self.laurel_rank else {}
        if self.vision_params:
            out["vision_params"] = self.vision_params
            out["text_params"] = self.param_count(text_only=True)
        if self.idle_params:
            out["idle_params"] = self.idle_params
        return out
