"""Totals of one step (or one measured window): time, throughput, MFU, HFU, MBU and the bound.

Every source fills the same record. Definitions (seed 001):

* MFU = model FLOPs (matmuls with causal-useful pairs) / time / peak FLOP/s of the compute dtype;
* HFU = executed FLOPs (every operator, as the kernels run them) / time / peak;
* MBU = (weight bytes + KV bytes read) / time / peak HBM bandwidth.

For prefill, ``time_s`` is the time to first token at the roofs (TTFT without queueing); for
decode it is the time per output token (TPOT) of every sequence in the batch.
"""

from __future__ import annotations

from typing import Any

import msgspec

from rooftop.core.enums import Bound


class Totals(msgspec.Struct, frozen=True):
    """One step's totals; bytes at HBM, FLOPs and seconds raw SI."""

    phase: str
    time_s: float
    tokens: float
    flops: float
    model_flops: float
    bytes: float
    weight_bytes: float
    kv_read_bytes: float
    kv_write_bytes: float
    activation_bytes: float
    link_bytes: float
    mfu: float
    hfu: float
    mbu: float
    bound: Bound
    peak_flop_per_s: float
    bandwidth_bytes_per_s: float

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "bound", Bound(self.bound))  # a plain word is accepted

    @property
    def kv_bytes(self) -> float:
        """KV read + write."""
        return self.kv_read_bytes + self.kv_write_bytes

    @property
    def intensity(self) -> float:
        """FLOP per HBM byte of the whole step."""
        return self.flops / self.bytes if self.bytes else float("inf")

    @property
    def tokens_per_s(self) -> float:
        """Tokens processed per second (prompt tokens in prefill, output tokens in decode)."""
        return self.tokens / self.time_s if self.time_s else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form, with the derived fields the schema promises."""
        out = msgspec.structs.asdict(self)
        out.update(kv_bytes=self.kv_bytes, intensity=self.intensity, tokens_per_s=self.tokens_per_s)
        if self.phase == "prefill":
            out["ttft_s"] = self.time_s
        elif self.phase == "decode":
            out["tpot_s"] = self.time_s
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Totals:
        """Inverse of to_dict (derived keys ignored)."""
        names = cls.__struct_fields__
        fields: dict[str, Any] = {k: float("nan") if v is None else v for k, v in data.items() if k in names}
        fields["bound"] = Bound(fields.get("bound") or "")
        return cls(**fields)
