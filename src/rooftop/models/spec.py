"""ModelSpec: the frozen shape of a decoder-only transformer, with derived fields in one place.

Covers dense Llama-style models, GQA/MQA, MoE (routed top-k experts, shared experts, dense
first layers), MLA (DeepSeek's latent KV cache), tied embeddings, learned position embeddings
(GPT-2), LayerNorm vs RMSNorm, gated vs plain MLPs, and q/k norms (Qwen3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rooftop.errors import SpecError


@dataclass(frozen=True)
class MoE:
    """Mixture-of-experts feed-forward: ``experts`` routed experts, ``top_k`` per token."""

    experts: int
    top_k: int
    expert_ffn: int
    shared_experts: int = 0
    shared_ffn: int = 0  # per shared expert; defaults to expert_ffn
    dense_layers: tuple[int, ...] = ()  # layers that use the dense FFN instead
    router_bias: bool = False  # DeepSeek's e_score_correction_bias


@dataclass(frozen=True)
class MLA:
    """Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds a compressed latent."""

    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int
    q_lora_rank: int | None = None


@dataclass(frozen=True)
class ModelSpec:
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
    gated_mlp: bool = True  # SwiGLU/GeGLU: gate, up, down; else up, down
    activation: str = "silu"
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    qk_norm: bool = False
    norms_per_layer: int = 2
    learned_positions: bool = False
    moe: MoE | None = None
    mla: MLA | None = None
    source: str = ""
    notes: tuple[str, ...] = field(default=())

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
            object.__setattr__(self, "head_dim", self.hidden // self.heads)
        if self.moe and not 1 <= self.moe.top_k <= self.moe.experts:
            raise SpecError(f"{self.name}: top_k must be in 1..experts")

    # ---- derived shapes -------------------------------------------------------------------
    @property
    def q_dim(self) -> int:
        """Width of the query projection output."""
        if self.mla:
            return self.heads * (self.mla.qk_nope_head_dim + self.mla.qk_rope_head_dim)
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of one of the K or V projections (GQA: kv_heads × head_dim)."""
        return self.kv_heads * self.head_dim

    def is_moe_layer(self, layer: int) -> bool:
        """Whether ``layer`` uses routed experts."""
        return self.moe is not None and layer not in self.moe.dense_layers

    @property
    def moe_layers(self) -> int:
        """How many layers route to experts."""
        return sum(self.is_moe_layer(i) for i in range(self.layers))

    # ---- KV cache --------------------------------------------------------------------------
    @property
    def kv_elements_per_token(self) -> int:
        """KV-cache elements one token stores across all layers (K and V, or MLA's latent)."""
        if self.mla:
            return self.layers * (self.mla.kv_lora_rank + self.mla.qk_rope_head_dim)
        return self.layers * 2 * self.kv_heads * self.head_dim

    def kv_bytes_per_token(self, bytes_per_element: float) -> float:
        """KV bytes one token stores. Llama-2-7B bf16: 32 layers × 2 × 32 heads × 128 × 2 B = 524,288."""
        return self.kv_elements_per_token * bytes_per_element

    # ---- parameters ----------------------------------------------------------------------
    def attention_params(self) -> int:
        """Parameters of one layer's attention block (projections, biases, q/k norms)."""
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
            return q + kv + self.heads * m.v_head_dim * h
        params = h * self.q_dim + 2 * h * self.kv_dim + self.q_dim * h
        if self.qkv_bias:
            params += self.q_dim + 2 * self.kv_dim
        if self.o_bias:
            params += h
        if self.qk_norm:
            params += 2 * self.head_dim
        return params

    def mlp_params(self, width: int) -> int:
        """Parameters of one dense MLP of intermediate ``width``."""
        mats = 3 if self.gated_mlp else 2
        params = mats * self.hidden * width
        if self.mlp_bias:
            params += (mats - 1) * width + self.hidden
        return params

    def ffn_params(self, layer: int, active: bool = False) -> int:
        """Parameters of one layer's feed-forward; ``active`` counts only top-k + shared experts."""
        if not self.is_moe_layer(layer):
            return self.mlp_params(self.ffn)
        assert self.moe is not None
        moe = self.moe
        routed = moe.top_k if active else moe.experts
        params = routed * self.mlp_params(moe.expert_ffn)
        params += moe.shared_experts * self.mlp_params(moe.shared_ffn or moe.expert_ffn)
        params += self.hidden * moe.experts + (moe.experts if moe.router_bias else 0)
        return params

    @property
    def norm_params(self) -> int:
        """Parameters of one norm (LayerNorm has weight and bias)."""
        return self.hidden * (2 if self.norm == "layer" else 1)

    @property
    def embedding_params(self) -> int:
        """Token (and learned position) embedding parameters."""
        return self.vocab * self.hidden + (self.max_positions * self.hidden if self.learned_positions else 0)

    @property
    def lm_head_params(self) -> int:
        """Output projection parameters (0 when tied to the embedding)."""
        return 0 if self.tied_embeddings else self.vocab * self.hidden

    def param_count(self, active: bool = False) -> int:
        """Total parameters (or, with ``active``, those one token uses: top-k experts only)."""
        per_layer = sum(self.ffn_params(i, active) for i in range(self.layers))
        per_layer += self.layers * (self.attention_params() + self.norms_per_layer * self.norm_params)
        return self.embedding_params + per_layer + self.norm_params + self.lm_head_params

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
        if self.moe:
            out["moe"] = {
                "experts": self.moe.experts,
                "top_k": self.moe.top_k,
                "expert_ffn": self.moe.expert_ffn,
                "shared_experts": self.moe.shared_experts,
                "dense_layers": list(self.moe.dense_layers),
            }
        if self.mla:
            out["mla"] = {
                "kv_lora_rank": self.mla.kv_lora_rank,
                "q_lora_rank": self.mla.q_lora_rank,
                "qk_nope_head_dim": self.mla.qk_nope_head_dim,
                "qk_rope_head_dim": self.mla.qk_rope_head_dim,
                "v_head_dim": self.mla.v_head_dim,
            }
        return out
