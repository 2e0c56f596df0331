"""A profiled step's evidence: its time and the host time between operators."""

from __future__ import annotations

from typing import Any

import msgspec

HOST_BOUND_SHARE = 0.5


class ProfileEvidence(msgspec.Struct, frozen=True):
    """A profiled step: its time and the time between operators (None when unknown)."""

    step_time_s: float | None = None
    gap_s: float | None = None
    gap_share: float | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ProfileEvidence:
        """From the artifact's ``profile`` section."""
        return cls(d.get("step_time_s"), d.get("gap_s"), d.get("gap_share"))

    @property
    def host_bound(self) -> bool:
        """Half the step or more between operators: the host, not a roof, sets the step time."""
        return self.gap_share is not None and self.gap_share >= HOST_BOUND_SHARE

    def utilisation(self, metric: str, value: float) -> str:
        """'MFU 5% measured', and why it is low when the host binds (for the phase rules' titles)."""
        text = f"{metric} {value:.1%} measured"
        if self.host_bound and self.gap_share is not None:
            text += f", low because {self.gap_share:.0%} of the step is host time between operators"
        return text
