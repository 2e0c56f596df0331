"""Run every registered rule over a result's evidence and collect the findings.

A rule is a function ``(Evidence) -> list[Finding]`` in its own file under ``rules/``,
registered with ``@rule``. Rules never raise on missing data: they return no finding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from rooftop.core.findings import Finding
from rooftop.core.packaged import import_modules
from rooftop.core.points import RooflinePoint
from rooftop.core.roofs import Roofs

if TYPE_CHECKING:  # annotations only: each source loads its own evidence module
    from rooftop.core.totals import Totals
    from rooftop.diagnose.evidence.live import LiveEvidence
    from rooftop.diagnose.evidence.memory import MemoryEvidence
    from rooftop.diagnose.evidence.profile import ProfileEvidence
    from rooftop.diagnose.evidence.timeline import TimelineEvidence


class Evidence(msgspec.Struct, frozen=True):
    """What the rules see: the points, the roofs, the step totals and a typed section per source."""

    points: Sequence[RooflinePoint]
    roofs: Roofs
    totals: Totals | None = None
    workload: dict[str, Any] = msgspec.field(default_factory=dict)
    profile: ProfileEvidence | None = None
    live: LiveEvidence | None = None
    timeline: TimelineEvidence | None = None
    memory: MemoryEvidence | None = None


Rule = Callable[[Evidence], list[Finding]]
_RULES: dict[str, Rule] = {}


def rule(fn: Rule) -> Rule:
    """Register a rule under its function name (once)."""
    if fn.__name__ in _RULES:
        raise ValueError(f"duplicate rule {fn.__name__}")
    _RULES[fn.__name__] = fn
    return fn


_LOADED: list[bool] = []  # the rule modules are found once per process (watch diagnoses every window)


def _load_rules() -> None:
    # By name, not `from rooftop.diagnose import rules`: the rules import this module, not the reverse.
    if _LOADED:
        return
    import_modules("rooftop.diagnose.rules")
    _LOADED.append(True)


def rules() -> dict[str, Rule]:
    """Every registered rule by name."""
    _load_rules()
    return dict(_RULES)


def diagnose(evidence: Evidence) -> list[Finding]:
    """All findings for ``evidence``, most severe first."""
    found: list[Finding] = []
    for fn in rules().values():
        found.extend(fn(evidence))
    return sorted(found, key=lambda f: f.severity.rank)
