"""Kernel name -> operator class (GEMM, GEMV, attention, NCCL, norm, elementwise...), from a data file.

The patterns live in ``mappings/kernel_classes_v1.toml`` (first match wins). Names that match no
class are ``other``. Classification runs once per distinct name, never per kernel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from rooftop.ingest.mapping import load

OTHER = "other"


@dataclass(frozen=True)
class KernelClass:
    """One class: its name, time-breakdown group and the analytic op kind it joins with."""

    name: str
    group: str
    op: str
    pattern: re.Pattern[str]


@cache
def classes() -> tuple[KernelClass, ...]:
    """The shipped classes, in match order."""
    out = []
    for entry in load("kernel_classes_v1")["class"]:
        pattern = re.compile("|".join(f"(?:{p})" for p in entry["patterns"]), re.IGNORECASE)
        out.append(KernelClass(entry["name"], entry["group"], entry.get("op", ""), pattern))
    return tuple(out)


_FALLBACK = KernelClass(OTHER, OTHER, "", re.compile("$^"))


@cache
def classify(name: str) -> KernelClass:
    """The class of one kernel name (``other`` when nothing matches)."""
    for kc in classes():
        if kc.pattern.search(name):
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


def _depth0(text: str, stop: str) -> int:
    """Index of the first ``stop`` character outside <...>, or len(text)."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == stop and depth == 0:
            return i
    return len(text)


def short_kernel(name: str, width: int = 70) -> str:
    """A readable kernel name: no return type, no argument list, long templates cut with '…'."""
    text = name.strip()
    text = text[: _depth0(text, "(")] or text
    while (cut := _depth0(text, " ")) < len(text):  # drop 'void ', 'std::enable_if<..>::type ' ...
        text = text[cut + 1 :]
    return text if len(text) <= width else text[: width - 1] + "…"
