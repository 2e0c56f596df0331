"""Finding: what binds, the evidence in numbers, and remedies with their side effects."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rooftop.core.enums import Severity


@dataclass(frozen=True)
class Remedy:
    """One thing to change, and what it may cost elsewhere."""

    action: str
    side_effects: str


@dataclass(frozen=True)
class Finding:
    """A diagnosis. ``code`` is stable (for scripts); ``evidence`` holds the numbers behind it."""

    code: str
    severity: Severity
    title: str
    bottleneck: (
        str  # compute | weight-bandwidth | kv-bandwidth | attention-io | launch | communication | scheduler | ...
    )
    evidence: dict[str, Any] = field(default_factory=dict)
    remedies: tuple[Remedy, ...] = ()
    check_first: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "severity", Severity(self.severity))  # a plain word is accepted

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {
            "code": self.code,
            "severity": self.severity,
            "title": self.title,
            "bottleneck": self.bottleneck,
            "evidence": self.evidence,
            "check_first": self.check_first,
            "remedies": [{"action": r.action, "side_effects": r.side_effects} for r in self.remedies],
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
            remedies=tuple(Remedy(r["action"], r["side_effects"]) for r in data.get("remedies", [])),
            check_first=data.get("check_first", ""),
        )
