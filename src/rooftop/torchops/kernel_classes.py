"""Kernel name -> operator class (GEMM, GEMV, attention, communication, norm, elementwise...), from data.

The patterns live in ``mappings/kernel_classes_v1.toml`` (first match wins); communication kernels
are labelled by their collective (all_reduce, all_to_all, all_gather, reduce_scatter, broadcast,
send_recv...) from its ``[[collective]]`` table. Names that match no class are ``other``.
Classification runs once per distinct name, never per kernel.

Users extend the map without code: a TOML file with the same ``[[class]]`` / ``[[collective]]``
tables, named by ``ROOFTOP_KERNEL_CLASSES`` or ``rooftop import --kernel-classes FILE``; its
entries are tried before the shipped ones (docs/import.md).
"""

from __future__ import annotations

import os
import re
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import msgspec

from rooftop.errors import TraceFormatError
from rooftop.torchops.mapping import load

USER_ENV = "ROOFTOP_KERNEL_CLASSES"

OTHER = "other"


class KernelClass(msgspec.Struct, frozen=True, dict=True):
    """One class: its name, time-breakdown group, the analytic op kind it joins with, its patterns.

    A name matches when one pattern is found in it, ignoring case. For ASCII names, plain-word
    patterns are substring tests on the lower-cased name (a regex alternation of a dozen words
    costs ~20 µs on a 1,000-character template name) and regexes without backslashes are
    lower-cased and searched one by one in the lower-cased name without IGNORECASE: either, or
    joining them in one alternation, would disable sre's literal-prefix search (``^cijk_`` and
    ``triton_tem_fused_.*mm`` take 0.1 and 0.3 µs apart, 6 µs as one regex, on a 570-character
    name). Other regexes, and non-ASCII names, use the IGNORECASE regex.
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
    def _lowered_regexes(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p.lower()) for p in self.patterns if re.escape(p) != p and "\\" not in p)

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
        if any(r.search(lowered) is not None for r in self._lowered_regexes):
            return True
        return self._regex is not None and self._regex.search(name) is not None


@cache
def _user(path: str) -> dict[str, Any]:
    """The user's class file (``[[class]]`` and ``[[collective]]`` tables); one clear error when unusable."""
    import tomllib

    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        for entry in data.get("class", []):
            KernelClass(entry["name"], entry.get("group", entry["name"]), entry.get("op", ""), tuple(entry["patterns"]))
        for entry in data.get("collective", []):
            (entry["name"], list(entry["words"]))
    except OSError as exc:
        raise TraceFormatError(f"{path}: cannot read the kernel-class file: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
        raise TraceFormatError(f"{path}: not a kernel-class file ({type(exc).__name__}: {exc})") from exc
    return data


def _tables() -> dict[str, list[dict[str, Any]]]:
    """The user's entries (if any) followed by the shipped ones."""
    shipped = load("kernel_classes_v1")
    path = os.environ.get(USER_ENV)
    user = _user(path) if path else {}
    return {key: [*user.get(key, []), *shipped.get(key, [])] for key in ("class", "collective")}


def use_user_classes(path: str | None) -> None:
    """Read ``path`` (a kernel-class TOML) before the shipped classes from now on (None: shipped only)."""
    if path:
        _user(path)  # fail now, naming the file
        os.environ[USER_ENV] = path
    else:
        os.environ.pop(USER_ENV, None)
    for fn in (_classes, _collectives, classify, collective_of):
        fn.cache_clear()


def classes() -> tuple[KernelClass, ...]:
    """The classes in match order (the user's first)."""
    return _classes(os.environ.get(USER_ENV, ""))


@cache
def _classes(_user_path: str) -> tuple[KernelClass, ...]:
    return tuple(
        KernelClass(entry["name"], entry.get("group", entry["name"]), entry.get("op", ""), tuple(entry["patterns"]))
        for entry in _tables()["class"]
    )


@cache
def _collectives(_user_path: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((entry["name"], tuple(w.lower() for w in entry["words"])) for entry in _tables()["collective"])


_FALLBACK = KernelClass(OTHER, OTHER, "", ())


@cache
def classify(name: str) -> KernelClass:  # cleared by use_user_classes
    """The class of one kernel name (``other`` when nothing matches)."""
    lowered = name.lower()
    for kc in classes():
        if kc.matches(name, lowered):
            return kc
    return _FALLBACK


def is_communication(name: str) -> bool:
    """Whether a kernel is communication (collectives, expert-parallel all-to-all, NVSHMEM...)."""
    return classify(name).name == "communication"


def collective_label(text: str) -> str:
    """'all_reduce', 'all_to_all'... for a kernel name or an NCCL ``Collective name``; '' when none says."""
    flat = text.lower().replace("_", "").replace("-", "")
    for label, words in _collectives(os.environ.get(USER_ENV, "")):
        if any(w in flat for w in words):
            return label
    return ""


@cache
def collective_of(name: str) -> str:
    """The collective of a communication kernel ('all_reduce' for ncclKernel_AllReduce_...); '' otherwise."""
    return collective_label(name) if is_communication(name) else ""


def op_of(name: str) -> str:
    """The operator kind a kernel joins with: its class's ``op``; for communication, its collective."""
    kc = classify(name)
    if kc.name == "communication":
        return collective_of(name) or kc.op
    return kc.op


_TEMPLATE_BRACKETS = re.compile(r"[<>()]")


def _signature_name(text: str) -> str:
    """The name in a demangled signature: after the last space and before the first '(' outside <...>.

    Parentheses inside a template nest, and a ``<`` or ``>`` within them compares numbers
    (vLLM's ``std::enable_if<(((8)>(0)))&&...>``): it neither opens nor closes the template.
    One pass over the brackets notes where each run of text outside every template starts and
    ends, and the first '(' there; the last space is then looked for in those runs from the end
    (a loop over the brackets only, not over the spaces inside templates: half the time of
    cutting at the first outer space until none is left). A '(' that opens the text is not an
    argument list: the whole text is kept.
    """
    runs: list[tuple[int, int]] = []  # text outside <...>, before the argument list
    angle = paren = start = 0
    end = len(text)
    cut = True
    for m in _TEMPLATE_BRACKETS.finditer(text):
        ch, at = m.group(), m.start()
        if angle and ch in "()":
            paren = paren + 1 if ch == "(" else max(0, paren - 1)
        elif paren:
            continue
        elif ch == "<":
            if angle == 0:
                runs.append((start, at))
            angle += 1
        elif ch == ">":
            if angle == 1:
                start = at + 1
            angle = max(0, angle - 1)
        elif ch == "(" and cut:
            if at == 0:
                cut = False  # the text opens with it: not an argument list
                continue
            end = at
            break
    if angle == 0:
        runs.append((start, end))
    for lo, hi in reversed(runs):
        space = text.rfind(" ", lo, hi)
        if space >= 0:
            return text[space + 1 : end]
    return text[:end]


def short_kernel(name: str, width: int = 70) -> str:
    """A readable kernel name: no return type, no argument list, long templates cut with '…'.

    ``(anonymous namespace)::`` is dropped first: its '(' is not an argument list
    (``at::native::(anonymous namespace)::CatArrayBatchedCopy<...>(...)`` read 'at::native::').
    """
    text = _signature_name(name.strip().replace("(anonymous namespace)::", ""))  # no 'void ', no arguments
    return text if len(text) <= width else text[: width - 1] + "…"
