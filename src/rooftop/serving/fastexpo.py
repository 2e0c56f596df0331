"""A fast path for the Prometheus text format: plain lines parsed with one regex, labels memoised.

`rooftop watch` of a hundred endpoints parses a hundred expositions a second; prometheus_client's
parser spends ~10 ms on a 50 kB vLLM page, this path well under one. It vouches only for the
plain form, ``name{label="value",...} value [timestamp]`` with ``# HELP``/``# TYPE`` comments and
no escapes; anything else (a backslash, OpenMetrics' ``# EOF``, a line it cannot match) returns
None and the caller uses prometheus_client's parser, so results and errors come from one place.
Names follow prometheus_client: a counter's family name drops ``_total``, its sample has it.
"""

from __future__ import annotations

import re
from functools import lru_cache

LINE = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?[ \t]+(\S+)(?:[ \t]+-?\d+)?[ \t]*")
LABEL = re.compile(r'[ \t]*([a-zA-Z_][a-zA-Z0-9_]*)[ \t]*=[ \t]*"([^"]*)"[ \t]*(?:,|$)')

Labels = tuple[tuple[str, str], ...]


@lru_cache(maxsize=65536)
def labels(text: str) -> Labels | None:
    """``a="1",b="2"`` → sorted pairs (None when not the plain form); the same strings recur every scrape."""
    pairs, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = LABEL.match(text, pos)
        if m is None:
            return None
        pairs.append((m.group(1), m.group(2)))
        pos = m.end()
    return tuple(sorted(pairs))


SUFFIXES = ("", "_total", "_bucket", "_sum", "_count", "_created", "_gsum", "_gcount", "_info")


@lru_cache(maxsize=65536)
def _type_line(line: str) -> tuple[str, str] | None:
    """A ``# TYPE`` line's (family name, type); None when malformed. The same lines recur every scrape."""
    parts = line.split(None, 3)
    if len(parts) < 4:
        return None
    name, kind = parts[2], parts[3].strip()
    if kind == "counter" and name.endswith("_total"):
        name = name[:-6]
    return name, kind


def _in_family(name: str, family: str) -> bool:
    return name.startswith(family) and name[len(family) :] in SUFFIXES


Head = tuple[str, Labels | None, str, str]  # (name as shown, "" to drop; labels; family after; untyped name or "")
_HEADS: dict[tuple[str, str], dict[str, Head]] = {}  # (family, its type) -> {line less its value: Head}
MAX_HEADS = 200_000
MAX_FAMILIES = 10_000  # memos kept; a page of ever-new families gets throw-away ones past it
_stored = [0]  # heads memoised so far (bounded: a hostile page cannot grow the memo without end)


def _head(family: str, kind: str, name: str, raw: str | None) -> Head:
    """What a sample line's name and labels mean after ``family`` (of type ``kind``)."""
    untyped = not (family and _in_family(name, family))
    if untyped:
        family = ""
    elif name == family and kind == "counter":
        name += "_total"  # as prometheus_client names a counter's sample
    shown = "" if name.endswith("_created") else name
    return shown, labels(raw) if raw else (), family, name if untyped else ""


def _heads(family: str, kind: str) -> dict[str, Head]:
    """The memo of the lines under ``family``: one per family, so a line's key is its text, not a tuple."""
    heads = _HEADS.get((family, kind))
    if heads is None:
        heads = {}
        if len(_HEADS) < MAX_FAMILIES:
            _HEADS[(family, kind)] = heads
    return heads


def _new_head(line: str, family: str, kind: str, heads: dict[str, Head]) -> tuple[Head, str] | None:
    """A line not seen before: its head (memoised in ``heads`` while there is room) and its value text."""
    m = LINE.fullmatch(line)
    if m is None:
        return None
    name, raw, value_text = m.groups()
    head = _head(family, kind, name, raw)
    before, _, last = line.rpartition(" ")
    if value_text == last and _stored[0] < MAX_HEADS:  # else a timestamp follows the value: not memoised
        heads[before] = head
        _stored[0] += 1
    return head, value_text


def parse_fast(
    text: str, families: frozenset[str] | None = None
) -> tuple[list[tuple[str, Labels, float]], dict[str, str]] | None:
    """(name, labels, value) of every sample and the family types, or None when the text needs the full parser.

    A line's meaning up to its value is memoised (``_HEADS``): a page repeats the same series on
    every scrape, so most lines cost a split, a lookup and a float(). With ``families``, the
    samples of typed families not in it are dropped before their value is read (a watch that
    knows its engine reads only the series its map uses); every ``# TYPE`` is still recorded.
    """
    if "\\" in text:
        return None
    out: list[tuple[str, Labels, float]] = []
    types: dict[str, str] = {}
    family = kind = ""
    heads = _heads(family, kind)
    skip = False  # the samples of the current family are not wanted
    for line in text.splitlines():
        if not line or line[0] == "#":
            if line.startswith("# TYPE"):
                typed = _type_line(line)
                if typed is None:
                    return None
                family, kind = typed
                types[family] = kind
                heads = _heads(family, kind)
                skip = families is not None and family not in families
            elif line.startswith("# EOF"):
                return None
            continue
        before, _, value_text = line.rpartition(" ")
        head = heads.get(before)
        if head is None:
            found = _new_head(line, family, kind, heads)
            if found is None:
                return None
            head, value_text = found
        shown, lab, after, untyped = head
        if skip and after:
            continue
        if untyped:
            types.setdefault(untyped, "unknown")
            if family:  # as family: what follows an untyped line is untyped
                family = kind = ""
                heads = _heads(family, kind)
        if lab is None:
            return None
        if not shown:
            continue
        try:
            value = float(value_text)
        except ValueError:
            return None
        if value == value:  # NaN samples are dropped
            out.append((shown, lab, value))
    return out, types
