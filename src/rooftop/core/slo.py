"""Service-level objectives: the one SLO type that `sweep` (model) and `bench` (measured) share."""

from __future__ import annotations

from typing import Any

import msgspec


class SLO(msgspec.Struct, frozen=True):
    """Latency objectives in seconds (None = not set)."""

    ttft_s: float | None = None
    tpot_s: float | None = None
    e2e_s: float | None = None

    def met(self, ttft_s: Any, tpot_s: Any, e2e_s: Any = None) -> Any:
        """Whether the latencies meet every objective set; a value of None is not checked.

        Scalars give a bool; numpy arrays (a sweep grid) give an element-wise mask.
        """
        ok: Any = True
        for limit, value in ((self.ttft_s, ttft_s), (self.tpot_s, tpot_s), (self.e2e_s, e2e_s)):
            if limit is not None and value is not None:
                ok = ok & (value <= limit)
        return ok

    def to_dict(self) -> dict[str, float | None]:
        """{'ttft_s': …, 'tpot_s': …, 'e2e_s': …}."""
        return {"ttft_s": self.ttft_s, "tpot_s": self.tpot_s, "e2e_s": self.e2e_s}
