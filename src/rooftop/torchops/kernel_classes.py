"""Kernel name -> operator class (GEMM, GEMV, attention, NCCL, norm, elementwise...), from a data file.

The patterns live in ``mappings/kernel_classes_v1.toml`` (first match wins). Names that match no
class are ``other``. Classification runs once per distinct name, never per kernel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, cached_property

from rooftop.torchops.mapping import load

OTHER = "other"


@dataclass(frozen=True)
class KernelClass:
    """One class: its name, time-breakdown group, the analytic op kind it joins with, its patterns.

    A name matches when one pattern is found in it, ignoring case. For ASCII names, plain-word
    patterns are substring tests on the lower-cased name (a regex alternation of a dozen words
    costs ~20 µs on a 1,000-character template name) and regexes without backslashes are
    lower-cased and searched in the lower-cased name without IGNORECASE (which would disable
    sre's literal-prefix search); other regexes, and non-ASCII names, use the IGNORECASE regex.
    """

    name: str
    group: str
    op: str
    patterns: tuple[str, ...]

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """Every pattern as one case-insensitive regex."""
        return re.compile("|".join(f"(?:{p})" for p in self.patterns), re.IGNORECASE)

    @cached_property
    def _words(self) -> tuple[str, ...]:
        return tuple(p.lower() for p in self.patterns if re.escape(p) == p)

    @cached_property
    def _lowered_regex(self) -> re.Pattern[str] | None:
        rest = [p.lower() for p in self.patterns if re.escape(p) != p and "\\" not in p]
        return re.compile("|".join(f"(?:{p})" for p in rest)) if rest else None

    @cached_property
    def _regex(self) -> re.Pattern[str] | None:
        rest = [p for p in self.patterns if re.escape(p) != p and "\\" in p]
        return re.compile("|".join(f"(?:{p})" for p in rest), re.IGNORECASE) if rest else None

    def matches(self, name: str, lowered: str | None = None) -> bool:
        """Whether one of the patterns is found in ``name`` (case-insensitive; ``lowered``: name.lower())."""
        if not name.isascii():
            return self.pattern.search(name) is not None
        if lowered is None:
            lowered = name.lower()
        if any(map(lowered.__contains__, self._words)):  # C-level loop over the words
            return True
        if self._lowered_regex is not None and self._lowered_regex.search(lowered) is not None:
            return True
        return self._regex is not None and self._regex.search(name) is not None


@cache
def classes() -> tuple[KernelClass, ...]:
    """The shipped classes, in match order."""
    return tuple(
        KernelClass(entry["name"], entry["group"], entry.get("op", ""), tuple(entry["patterns"]))
        for entry in load("kernel_classes_v1")["class"]
    )


_FALLBACK = KernelClass(OTHER, OTHER, "", ())


@cache
def classify(name: str) -> KernelClass:
    """The class of one kernel name (``other`` when nothing matches)."""
    lowered = name.lower()
    for kc in classes():
        if kc.matches(name, lowered):
            return kc
    return _FALLBACK


def is_communication(name: str) -> bool:
    """Whether a kernel is a collective (NCCL/RCCL or a custom all-reduce)."""
    return classify(name).name == "communication"


_COLLECTIVE = re.compile(r"(?:nccl|rccl)(?:Dev)?Kernel_([A-Za-z]+)", re.IGNORECASE)


def collective_of(name: str) -> str:
    """'AllReduce' from 'ncclKernel_AllReduce_RING_LL_Sum_float'; '' when the name does not say."""
    match = _COLLECTIVE.search(name)
    return match.group(1) if match else ""


@cache
def _brackets(stop: str) -> re.Pattern[str]:
    return re.compile(f"[<>{re.escape(stop)}]")


def _depth0(text: str, stop: str) -> int:
    """Index of the first ``stop`` character outside <...>, or len(text)."""
    depth = 0
    for m in _brackets(stop).finditer(text):  # only the brackets and stops, not every character
        ch = m.group()
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            return m.start()
    return len(text)


def short_kernel(name: str, width: int = 70) -> str:
    """A readable kernel name: no return type, no argument list, long templates cut with '…'."""
    text = name.strip()
    text = text[: _depth0(text, "(")] or text
    while (cut := _depth0(text, " ")) < len(text):  # drop 'void ', 'std::enable_if<..>::type ' ...
        text = text[cut + 1 :]
    return text if len(text) <= width else text[: width - 1] + "…"
