"""Token mixers: attention shapes, MLA, gated DeltaNet, KDA, Mamba, LFM2's short convolution, DSA's indexer.

``AttentionShape`` is the heads and widths of one kind of softmax-attention layer, for models that
give their sliding and full layers different shapes (Gemma 4, MiMo-V2); ``MLA`` is DeepSeek's
latent attention; ``KVGroup`` the attention layers that cache alike. Gated DeltaNet and Mamba
each keep a recurrent state per sequence whose size does not grow with the context (plus a short
convolution window), instead of a KV cache. Shapes follow the transformers implementations
(``Qwen3NextGatedDeltaNet``, ``KimiLinearDeltaAttention``, ``NemotronHMamba2Mixer`` /
``Mamba2Mixer``, ``JambaMambaMixer``, ``Lfm2ShortConv``); parameter counts equal theirs. A short
convolution keeps only its window: the last ``kernel - 1`` inputs of each channel.
"""

from __future__ import annotations

import msgspec


class AttentionShape(msgspec.Struct, frozen=True):
    """The heads and widths of one kind of attention layer (``v_head_dim`` 0: the key's).

    ``k_eq_v`` (Gemma 4's full layers): no v_proj; the key projection's output also gives the
    values. The cache still holds both tensors: keys are normed with a weight and rotated, values
    normed without one (transformers' ``Gemma4TextAttention``; vLLM stores them the same way).
    ``sinks``: one learned sink logit per head (gpt-oss; MiMo-V2's sliding layers only).
    """

    heads: int
    kv_heads: int
    head_dim: int
    v_head_dim: int = 0
    k_eq_v: bool = False
    sinks: bool = False

    def __post_init__(self) -> None:
        if not self.v_head_dim:
            msgspec.structs.force_setattr(self, "v_head_dim", self.head_dim)

    @property
    def q_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def k_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def v_dim(self) -> int:
        return self.kv_heads * self.v_head_dim

    @property
    def o_dim(self) -> int:
        """Input width of the output projection: every head's value."""
        return self.heads * self.v_head_dim

    @property
    def kv_elements_per_token(self) -> int:
        """Cached elements per token and layer: keys and values (both, even when k_eq_v)."""
        return self.k_dim + self.v_dim

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {"heads": self.heads, "kv_heads": self.kv_heads, "head_dim": self.head_dim}
        if self.v_head_dim != self.head_dim:
            out["v_head_dim"] = self.v_head_dim
        return out | ({"k_eq_v": True} if self.k_eq_v else {}) | ({"sinks": True} if self.sinks else {})


class MLA(msgspec.Struct, frozen=True):
    """Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds a compressed latent."""

    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int
    q_lora_rank: int | None = None

    def describe(self) -> dict[str, object]:
        keys = ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
        return {k: getattr(self, k) for k in keys}


class KVGroup(msgspec.Struct, frozen=True):
    """Attention layers that cache alike.

    ``layers`` of them, each holding ``elements_per_token`` per token for at most ``bound`` tokens
    (0: every token); ``kv_heads`` 0 for MLA's latent, which tensor-parallel GPUs do not split.
    """

    bound: int
    layers: int
    kv_heads: int
    elements_per_token: int

    def tokens(self, context: float) -> float:
        """Tokens each layer of the group holds at ``context``."""
        return min(context, self.bound) if self.bound else context


class LinearAttention(msgspec.Struct, frozen=True):
    """Gated DeltaNet (Qwen3-Next, Qwen3.5): ``k_heads`` key heads, ``v_heads`` value heads.

    ``kind`` "kda": Kimi Delta Attention (Kimi-Linear, Ling's hybrid), the delta rule with a decay
    per channel instead of per head: q, k, v and a b per head, a forget gate and an output gate of
    one value per channel, each through a low-rank pair (``gate_rank``: hidden -> rank -> channels)
    or, with ``gate_rank`` 0, one full projection; a dt bias per channel and an A per head.

    ``kind`` "lightning": MiniMax-01's lightning attention (``MiniMaxLightningAttention``), linear
    attention with a fixed decay per head (a buffer): one projection to q, k and v, an output gate
    of one value per channel, a norm over all heads' channels, out_proj; no convolution. Its state
    per head is d × d, updated (decay, k^T v) and read (q S) per token: 2 d² multiply-adds.
    """

    k_heads: int
    v_heads: int
    k_head_dim: int
    v_head_dim: int
    conv_kernel: int = 4  # 0: none (lightning)
    kind: str = "gdn"  # "gdn" | "kda" | "lightning"
    gate_rank: int = 0  # KDA: the rank of its forget and output gates (0: full-rank projections)

    @property
    def key_dim(self) -> int:
        return self.k_heads * self.k_head_dim

    @property
    def value_dim(self) -> int:
        return self.v_heads * self.v_head_dim

    @property
    def conv_dim(self) -> int:
        """Channels of the short convolution: q, k and v."""
        return 2 * self.key_dim + self.value_dim

    @property
    def in_width(self) -> int:
        """Outputs of the input projections from the hidden state.

        Gated DeltaNet: q, k, v, the output gate z, and b, a per value head. KDA: q, k, v, b per
        head, and its two gates (their low-rank halves, or the full channels).
        """
        if self.kind == "kda":
            return 2 * self.key_dim + self.value_dim + self.v_heads + 2 * (self.gate_rank or self.value_dim)
        if self.kind == "lightning":  # q, k, v and the output gate
            return 2 * self.key_dim + 2 * self.value_dim
        return 2 * self.key_dim + 2 * self.value_dim + 2 * self.v_heads

    @property
    def gate_up_width(self) -> int:
        """KDA's low-rank gates: the outputs of their second halves (rank -> channels), both gates."""
        return 2 * self.value_dim if self.kind == "kda" and self.gate_rank else 0

    def params(self, hidden: int) -> int:
        """in_proj, conv1d (no bias), dt_bias and A_log, gated norm, out_proj (KDA: low-rank gates)."""
        if self.kind == "lightning":  # qkv and gate projections, the norm over every channel, out_proj
            return hidden * self.in_width + self.value_dim + self.value_dim * hidden
        # Gated DeltaNet: dt_bias and A_log per value head; KDA: dt_bias per channel, A_log per head
        decay = self.value_dim + self.v_heads if self.kind == "kda" else 2 * self.v_heads
        return (
            hidden * self.in_width
            + self.gate_rank * self.gate_up_width
            + self.conv_dim * self.conv_kernel
            + decay
            + self.v_head_dim
            + self.value_dim * hidden
        )

    @property
    def state_elements(self) -> int:
        """Per sequence and layer: the recurrent state (v_heads × d_k × d_v) plus the conv window."""
        window = self.conv_dim * (self.conv_kernel - 1) if self.conv_kernel else 0
        return self.v_heads * self.k_head_dim * self.v_head_dim + window

    def recurrence_flops_per_token(self) -> float:
        """Matmul-like FLOPs per token: state update and read, ~3 · d_k · d_v per head (delta rule).

        Lightning attention's decayed update and read: 2 · d_k · d_v per head.
        """
        per_head = 2 if self.kind == "lightning" else 3
        return 2.0 * per_head * self.v_heads * self.k_head_dim * self.v_head_dim


class StateSpace(msgspec.Struct, frozen=True):
    """A Mamba layer. ``version`` 2 (Nemotron-H, Falcon-H1, Granite-4) or 1 (Jamba)."""

    d_inner: int
    d_state: int
    conv_kernel: int
    version: int = 2
    heads: int = 0  # Mamba-2: heads of d_inner / heads
    groups: int = 1  # Mamba-2: B/C groups
    dt_rank: int = 0  # Mamba-1
    conv_bias: bool = True
    proj_bias: bool = False
    inner_norms: bool = False  # Jamba's dt/B/C layernorms
    gated_norm: bool = True  # Mamba-2's RMSNorm before out_proj (Falcon-H1 may drop it)

    @property
    def conv_dim(self) -> int:
        return self.d_inner + 2 * self.groups * self.d_state if self.version == 2 else self.d_inner

    @property
    def in_width(self) -> int:
        """in_proj outputs: Mamba-2 x, z, B, C, dt; Mamba-1 x and z."""
        if self.version == 2:
            return 2 * self.d_inner + 2 * self.groups * self.d_state + self.heads
        return 2 * self.d_inner

    def params(self, hidden: int) -> int:
        """Projections, convolution, A/D/dt and norms, as transformers builds them."""
        bias = self.proj_bias
        p = hidden * self.in_width + (self.in_width if bias else 0)
        p += self.conv_dim * self.conv_kernel + (self.conv_dim if self.conv_bias else 0)
        p += self.d_inner * hidden + (hidden if bias else 0)
        if self.version == 2:
            return p + 3 * self.heads + (self.d_inner if self.gated_norm else 0)  # dt_bias, A_log, D; norm
        p += self.d_inner * (self.dt_rank + 2 * self.d_state)  # x_proj
        p += self.dt_rank * self.d_inner + self.d_inner  # dt_proj with bias
        p += self.d_inner * self.d_state + self.d_inner  # A_log, D
        return p + (self.dt_rank + 2 * self.d_state if self.inner_norms else 0)

    @property
    def state_elements(self) -> int:
        """Per sequence and layer: the SSM state plus the conv window."""
        ssm = self.d_inner * self.d_state  # Mamba-2: heads × head_dim × d_state is the same product
        return ssm + self.conv_dim * (self.conv_kernel - 1)

    def scan_flops_per_token(self) -> float:
        """State update and read per token: ~3 multiply-adds per state element."""
        return 2.0 * 3 * self.d_inner * self.d_state


class ShortConv(msgspec.Struct, frozen=True):
    """LFM2's gated short convolution (``Lfm2ShortConv``), in place of attention in its "conv" layers.

    in_proj gives B, C and x (3 × ``channels``, the hidden width); y = C · conv(B · x), a causal
    depthwise convolution of ``kernel`` taps per channel; out_proj maps y back. ``bias``: every one
    of the three has one (``conv_bias``).
    """

    channels: int
    kernel: int = 3
    bias: bool = False

    def params(self) -> int:
        """in_proj (3c²), the depthwise taps (c · kernel), out_proj (c²); with biases 3c + c + c."""
        c = self.channels
        return 4 * c * c + c * self.kernel + (5 * c if self.bias else 0)

    @property
    def state_elements(self) -> int:
        """Per sequence and layer: the convolution window, the last kernel - 1 inputs of each channel."""
        return self.channels * (self.kernel - 1)

    def flops_per_token(self) -> float:
        """B · x and C · y (a multiply per channel each) and the convolution (kernel multiply-adds per channel)."""
        return 2.0 * (1 + self.kernel) * self.channels


class RGLRU(msgspec.Struct, frozen=True):
    """RecurrentGemma's (Griffin's) recurrent block (``RecurrentGemmaRecurrentBlock``).

    Two projections from the hidden state to ``width`` channels (x and the gate branch y), a causal
    depthwise convolution of ``conv_kernel`` taps on x, the RG-LRU (input and recurrence gates,
    each block-diagonal over ``heads`` blocks, then a decayed state per channel), y's GELU times
    it, and a projection back; every projection and the convolution have biases.
    """

    width: int
    heads: int
    conv_kernel: int = 4

    @property
    def block(self) -> int:
        """Channels per gate block."""
        return self.width // self.heads

    def params(self, hidden: int) -> int:
        """linear_x, linear_y, linear_out; the convolution; the two gates and the recurrence parameter."""
        w = self.width
        gates = 2 * (self.heads * self.block * self.block + w)
        return 2 * (hidden * w + w) + w * hidden + hidden + w * self.conv_kernel + w + gates + w

    @property
    def state_elements(self) -> int:
        """Per sequence and layer: the state (one value per channel) and the convolution window."""
        return self.width + self.width * (self.conv_kernel - 1)


class Indexer(msgspec.Struct, frozen=True):
    """DeepSeek sparse attention's lightning indexer (DeepSeek-V3.2, GLM-5), one per attention layer.

    A small scorer ranks every cached token for each query: ``heads`` query heads of ``head_dim``
    (from MLA's compressed query) against ONE cached key of ``head_dim`` per token, ReLU'd and
    summed with a per-head weight; the MLA attention then reads only the ``topk`` best keys. The
    shapes are transformers' ``DeepseekV32Indexer``. A ``shared`` layer (GLM-5's ``indexer_types``)
    has no indexer and caches no index key: it attends over the top-k of the last layer that ran one.
    """

    heads: int
    head_dim: int
    topk: int
    shared: tuple[int, ...] = ()  # layers without an indexer of their own: they reuse the last one's top-k (GLM-5.2)

    def params(self, hidden: int, q_lora_rank: int) -> int:
        """wq_b (q_lora_rank -> heads × head_dim), wk (hidden -> head_dim), k_norm (LayerNorm), weights_proj."""
        return (
            q_lora_rank * self.heads * self.head_dim + hidden * self.head_dim + 2 * self.head_dim + hidden * self.heads
        )
