"""A serving window's evidence: engine gauges, counter increases, latency quantiles, utilisation."""

from __future__ import annotations

from typing import Any

import msgspec


class LiveUtilisation(msgspec.Struct, frozen=True):
    """A window's MFU and MBU per phase (keys prefill, decode, total), batch and mean prompt."""

    mfu: dict[str, float | None]
    mbu: dict[str, float | None]
    batch: float
    mean_prompt_tokens: float

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LiveUtilisation:
        """From the window's ``accounting`` JSON."""
        return cls(d["mfu"], d["mbu"], d["batch"], d["mean_prompt_tokens"])


class LiveEvidence(msgspec.Struct, frozen=True):
    """One serving window: engine gauges, counter increases and latency quantiles (by canonical name)."""

    gauges: dict[str, float] = msgspec.field(default_factory=dict)
    deltas: dict[str, float] = msgspec.field(default_factory=dict)
    latency: dict[str, dict[str, float | None]] = msgspec.field(default_factory=dict)
    interval_s: float = 0.0
    utilisation: LiveUtilisation | None = None  # with a model only

    def mean_latency_s(self, key: str) -> float | None:
        """The window's mean of one latency histogram (None when the engine has none)."""
        return (self.latency.get(key) or {}).get("mean")
