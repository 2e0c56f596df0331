"""The analytic memory budget per GPU as evidence: what is needed against what is usable."""

from __future__ import annotations

from typing import Any

import msgspec


class MemoryEvidence(msgspec.Struct, frozen=True):
    """The memory budget per GPU in bytes: what is needed against what is usable."""

    weights_bytes: float
    kv_cache_bytes: float
    activation_bytes: float
    usable_bytes: float
    free_bytes: float
    fits: bool

    @classmethod
    def from_dict(cls, m: dict[str, Any]) -> MemoryEvidence:
        """From the artifact's ``memory`` record."""
        return cls(
            float(m["weights_bytes"]),
            float(m["kv_cache_bytes"]),
            float(m.get("activation_bytes") or 0.0),
            float(m["usable_bytes"]),
            float(m["free_bytes"]),
            bool(m.get("fits", True)),
        )
