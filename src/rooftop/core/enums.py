"""Closed vocabularies shared by every layer: what binds a point, how severe a finding is.

StrEnums, so that they compare equal to their text and JSON keeps writing the same words.
"""

from __future__ import annotations

from enum import StrEnum


class Bound(StrEnum):
    """The roof that binds an operator or a step (memory-bound ones name the bytes that dominate)."""

    NONE = ""  # not known (live windows, imported kernels)
    COMPUTE = "compute"
    MEMORY = "memory"
    MEMORY_WEIGHTS = "memory:weights"
    MEMORY_KV = "memory:kv"
    MEMORY_ACTIVATIONS = "memory:activations"
    LINK = "link"

    @property
    def is_memory(self) -> bool:
        """Any memory bound, whichever bytes dominate."""
        return self.value.startswith("memory")


class Severity(StrEnum):
    """How urgent a finding is; ``rank`` orders them most severe first."""

    CRITICAL = "critical"
    WARN = "warn"
    INFO = "info"

    @property
    def rank(self) -> int:
        """0 for critical, 1 for warn, 2 for info."""
        return _RANK[self]


_RANK = {Severity.CRITICAL: 0, Severity.WARN: 1, Severity.INFO: 2}
