"""Finding: what binds, the evidence in numbers, and remedies with their side effects."""

from __future__ import annotations

from typing import Any

import msgspec

from rooftop.core.enums import Severity


class Remedy(msgspec.Struct, frozen=True):
    """One thing to change, and what it may cost elsewhere.

    ``lever`` names the what-if that can apply it (rooftop.api.whatif); ``predicted`` holds
    {metric: [before, after]} once a what-if has run, with the ``assumptions`` it used.
    """

    action: str
    side_effects: str
    lever: str = ""
    predicted: dict[str, list[Any]] = msgspec.field(default_factory=dict)
    assumptions: dict[str, Any] = msgspec.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form (lever, predicted and assumptions only when set)."""
        out: dict[str, Any] = {"action": self.action, "side_effects": self.side_effects}
        if self.lever:
            out["lever"] = self.lever
        if self.predicted:
            out["predicted"] = self.predicted
            out["assumptions"] = self.assumptions
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Remedy:
        """Inverse of to_dict."""
        return cls(
            data["action"],
            data["side_effects"],
            data.get("lever", ""),
            dict(data.get("predicted", {})),
            dict(data.get("assumptions", {})),
        )


class Finding(msgspec.Struct, frozen=True):
    """A diagnosis. ``code`` is stable (for scripts); ``evidence`` holds the numbers behind it."""

    code: str
    severity: Severity
    title: str
    bottleneck: (
        str  # compute | weight-bandwidth | kv-bandwidth | attention-io | launch | communication | scheduler | ...
    )
    evidence: dict[str, Any] = msgspec.field(default_factory=dict)
    remedies: tuple[Remedy, ...] = ()
    check_first: str = ""

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "severity", Severity(self.severity))  # a plain word is accepted

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {
            "code": self.code,
            "severity": self.severity,
            "title": self.title,
            "bottleneck": self.bottleneck,
            "evidence": self.evidence,
            "check_first": self.check_first,
            "remedies": [r.to_dict() for r in self.remedies],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        """Inverse of to_dict."""
        return cls(
            code=data["code"],
            severity=Severity(data["severity"]),
            title=data["title"],
            bottleneck=data.get("bottleneck", ""),
            evidence=dict(data.get("evidence", {})),
            remedies=tuple(Remedy.from_dict(r) for r in data.get("remedies", [])),
            check_first=data.get("check_first", ""),
        )
