"""Workload: what is being run — phase, shapes, dtypes, parallelism, attention kernel.

Phase is a parameter of one formula, not a copy: every operator sees ``new_tokens`` (query
positions per sequence this step) and ``past_tokens`` (cached positions it attends to).

* prefill of a prompt of p tokens, of which ``cached_prefix`` are already in the KV cache
  (prefix caching): new = p - prefix, past = prefix.
* decode at context c: new = 1, past = c (c cached tokens read + 1 new token);
* a speculative verify step at context c with k draft tokens: ``decode_new`` = k + 1, past = c.

``batch``, ``prompt`` and ``context`` may be numpy arrays (broadcast together) so that one
evaluation covers a whole grid; dtypes, phase and parallelism are scalars.
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np
from msgspec.structs import replace
from numpy.typing import NDArray

from rooftop.core.points import Phase
from rooftop.dtypes import dtype as lookup_dtype
from rooftop.errors import WorkloadError
from rooftop.units import MAX_TOKENS

ATTENTION_IMPLS = ("flash", "materialized")


class Workload(msgspec.Struct, frozen=True):
    """One serving step (or a grid of them when batch/prompt/context are arrays)."""

    phase: Phase = Phase.DECODE
    batch: Any = 1
    prompt: Any = 2048
    context: Any = 2048
    weight_dtype: str = "bf16"
    expert_dtype: str = ""  # the routed experts' weights; '' = weight_dtype (gpt-oss: MXFP4 experts, bf16 elsewhere)
    act_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    compute_dtype: str = ""  # '' = derived: fp8 weights compute in fp8, others in act_dtype
    tp: int = 1
    attention: str = "flash"
    causal: bool = True
    cached_prefix: Any = 0
    quant_group_size: int = 128
    decode_new: int = 1  # query tokens per sequence at decode (k + 1 for a speculative verify step)

    def __post_init__(self) -> None:
        if self.phase not in (Phase.PREFILL, Phase.DECODE):
            raise WorkloadError(f"phase must be prefill or decode, not {self.phase!r}")
        for name in ("weight_dtype", "act_dtype", "kv_dtype"):
            lookup_dtype(getattr(self, name))
        for name in ("expert_dtype", "compute_dtype"):
            if getattr(self, name):
                lookup_dtype(getattr(self, name))
        for name in ("batch", "prompt", "context", "cached_prefix"):
            values = np.asarray(getattr(self, name))
            if values.size == 0:
                raise WorkloadError(f"{name} is empty")
            low = 0 if name in ("context", "cached_prefix") else 1
            if np.any(values < low):
                raise WorkloadError(f"{name} must be ≥ {low}, got {values.min()}")
            if np.any(values > MAX_TOKENS):  # beyond: float overflow and TTFTs of 1e30 s, not a workload
                raise WorkloadError(f"{name} must be ≤ {MAX_TOKENS:,}, got {values.max():.4g}")
        if np.any(np.asarray(self.cached_prefix) >= np.asarray(self.prompt)):
            raise WorkloadError("cached_prefix must be shorter than the prompt")
        if self.tp < 1:
            raise WorkloadError(f"tp must be ≥ 1, got {self.tp}")
        if self.attention not in ATTENTION_IMPLS:
            raise WorkloadError(f"attention must be one of {', '.join(ATTENTION_IMPLS)}, not {self.attention!r}")
        if self.quant_group_size < 1:
            raise WorkloadError("quant_group_size must be ≥ 1")
        if self.decode_new < 1:
            raise WorkloadError(f"decode_new must be ≥ 1, got {self.decode_new}")

    @property
    def compute(self) -> str:
        """The dtype whose compute roof the GEMMs run on (W8A16/W4A16 dequantise to act dtype)."""
        if self.compute_dtype:
            return lookup_dtype(self.compute_dtype).compute_roof
        if lookup_dtype(self.weight_dtype).compute_roof == "fp8":
            return "fp8"
        return lookup_dtype(self.act_dtype).compute_roof

    @property
    def experts_weight_dtype(self) -> str:
        """The routed experts' weight dtype: ``expert_dtype``, else ``weight_dtype``."""
        return self.expert_dtype or self.weight_dtype

    @property
    def new_tokens(self) -> NDArray[np.float64]:
        """Query positions per sequence this step."""
        if self.phase is Phase.PREFILL:
            return np.asarray(self.prompt, dtype=np.float64) - np.asarray(self.cached_prefix, dtype=np.float64)
        # one token per sequence (k + 1 when verifying drafts); a 0-d array keeps GEMM grids (B, 1)
        return np.full((), float(self.decode_new), dtype=np.float64)

    @property
    def past_tokens(self) -> NDArray[np.float64]:
        """Cached positions each sequence attends to before this step's tokens."""
        if self.phase is Phase.PREFILL:
            return np.asarray(self.cached_prefix, dtype=np.float64) + 0 * np.asarray(self.prompt, dtype=np.float64)
        return np.asarray(self.context, dtype=np.float64)

    @property
    def tokens(self) -> NDArray[np.float64]:
        """Tokens processed this step across the batch (the GEMM M dimension): batch × new."""
        return np.asarray(self.batch, dtype=np.float64) * self.new_tokens

    @property
    def kv_tokens_after(self) -> NDArray[np.float64]:
        """Tokens held in each sequence's KV cache once this step ends."""
        return self.past_tokens + self.new_tokens

    def scalar(self, index: tuple[int, ...] | int) -> Workload:
        """The single workload at ``index`` of a grid workload."""
        shape = np.broadcast_shapes(
            *(np.shape(getattr(self, n)) for n in ("batch", "prompt", "context", "cached_prefix"))
        )

        def pick(name: str) -> int:
            return int(np.broadcast_to(np.asarray(getattr(self, name)), shape)[index])

        return replace(
            self,
            batch=pick("batch"),
            prompt=pick("prompt"),
            context=pick("context"),
            cached_prefix=pick("cached_prefix"),
        )

    def describe(self) -> dict[str, Any]:
        """Plain-JSON description (scalar workloads); ``decode_new`` only when it is not 1."""
        extra = {"decode_new": self.decode_new} if self.decode_new != 1 else {}
        experts = {"expert_dtype": self.expert_dtype} if self.experts_weight_dtype != self.weight_dtype else {}
        return {
            "phase": self.phase.value,
            "batch": _plain(self.batch),
            "prompt": _plain(self.prompt),
            "context": _plain(self.context),
            "cached_prefix": _plain(self.cached_prefix),
            "weight_dtype": self.weight_dtype,
            **experts,
            "act_dtype": self.act_dtype,
            "kv_dtype": self.kv_dtype,
            "compute_dtype": self.compute,
            "tp": self.tp,
            "attention": self.attention,
            "causal": self.causal,
            **extra,
        }


def _plain(value: Any) -> Any:
    arr = np.asarray(value)
    return int(arr) if arr.ndim == 0 else arr.tolist()
