"""A fast path for the Prometheus text format: plain lines parsed with one regex, labels memoised.

`rooftop watch` of a hundred endpoints parses a hundred expositions a second; prometheus_client's
parser spends ~10 ms on a 50 kB vLLM page, this path well under one. It vouches only for the
plain form, ``name{label="value",...} value [timestamp]`` with ``# HELP``/``# TYPE`` comments and
no escapes; anything else (a backslash, OpenMetrics' ``# EOF``, a line it cannot match) returns
None and the caller uses prometheus_client's parser, so results and errors come from one place.
Names follow prometheus_client: a counter's family name drops ``_total``, its sample has it.

Two memos make a repeated page cheap. A line's meaning up to its value is kept (``_HEADS``), so a
line seen before costs a split, a lookup and a float(). And a whole page's shape is kept as a
:class:`Layout`: an engine's page differs from its last one only in its numbers, so one C-level
split of the page into its numbers and the text between them finds the layout, and the samples
are the layout's series zipped with the numbers it picks (no Python loop over the lines).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from operator import itemgetter
from types import MappingProxyType
from typing import Any, NamedTuple

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


Row = tuple[str, Labels, float]

# A line's last field when it may be a number: every plain sample's value, and the last word of
# some HELP comments (harmless: a layout picks only its samples' fields), never a TYPE comment's type.
PIECE = re.compile(r" ([-+0-9.eEinfINFaN]+)$", re.M)


class Layout:
    """A page's shape: its text between its numbers (:data:`PIECE` fields), which number is which sample, its types.

    Every page equal to the one it was made from but for those numbers shares it, so a reader
    may keep in ``memo`` what it derives from the series alone (an engine map's reading).
    ``owners``: each row's typed family ('' for an untyped line), so a page read in full can be
    read for fewer families without going through its lines again (:meth:`narrowed`).
    ``distinct``: no series appears twice. ``chars``: the page's size, for the memo's bound.
    """

    __slots__ = ("_pick", "between", "chars", "distinct", "labels", "memo", "names", "owners", "picked", "types")

    def __init__(
        self,
        between: list[str],
        picked: Sequence[int],
        rows: Sequence[Row],
        owners: Sequence[str],
        types: Mapping[str, str],
        chars: int,
    ) -> None:
        self.between, self.chars, self.picked, self.owners = between, chars, tuple(picked), tuple(owners)
        self._pick = picker(picked)
        self.names = tuple(r[0] for r in rows)
        self.labels = tuple(r[1] for r in rows)
        self.types: Mapping[str, str] = MappingProxyType(dict(types))
        self.distinct = len(set(zip(self.names, self.labels, strict=True))) == len(rows)
        self.memo: dict[Any, Any] = {}

    def narrowed(self, families: frozenset[str]) -> Layout:
        """The layout read for ``families`` only: the rows that line-by-line parsing with them would keep."""
        keep = [k for k, owner in enumerate(self.owners) if not owner or owner in families]
        rows = [(self.names[k], self.labels[k], 0.0) for k in keep]
        owners = [self.owners[k] for k in keep]
        return Layout(self.between, [self.picked[k] for k in keep], rows, owners, self.types, self.chars)

    def read(self, numbers: list[str]) -> Page | None:
        """The page of this shape whose numbers are ``numbers`` (None: one is not a number)."""
        try:
            values = list(map(float, self._pick(numbers)))
        except ValueError:
            return None
        total = sum(values)
        if total != total:  # a NaN sample is dropped, as line by line: the rows no longer follow the layout
            return _page([r for r in zip(self.names, self.labels, values, strict=True) if r[2] == r[2]], self.types)
        return Page(self.names, self.labels, values, self.types, self)


class Page(NamedTuple):
    """A parsed page as columns: each sample's name, labels and value; the family types; its layout (or None)."""

    names: Sequence[str]
    labels: Sequence[Labels]
    values: Sequence[float]
    types: Mapping[str, str]
    layout: Layout | None


def _page(rows: list[Row], types: Mapping[str, str], layout: Layout | None = None) -> Page:
    names, labels, values = zip(*rows, strict=True) if rows else ((), (), ())
    return Page(names, labels, values, types, layout)


def picker(positions: Sequence[int]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """``seq -> tuple(seq[i] for i in positions)``, by one ``itemgetter`` in C (a tuple for 0 or 1 positions too)."""
    if len(positions) > 1:
        return itemgetter(*positions)
    if positions:
        only = positions[0]
        return lambda seq: (seq[only],)
    return lambda seq: ()


KINDS = frozenset(
    ("counter", "gauge", "histogram", "summary", "untyped", "unknown", "info", "stateset", "gaugehistogram")
)
_LAST: dict[tuple[str, frozenset[str] | None], Layout] = {}  # (source, families) -> the layout of its last page
MAX_LAYOUT_CHARS = 64 << 20  # pages' text kept at most (past it the oldest source's layout is dropped)
_kept_chars = [0]


def _remember(key: tuple[str, frozenset[str] | None], layout: Layout | None) -> None:
    old = _LAST.pop(key, None)
    if old is not None:
        _kept_chars[0] -= old.chars
    if layout is None:
        return
    _LAST[key] = layout
    _kept_chars[0] += layout.chars
    while _kept_chars[0] > MAX_LAYOUT_CHARS and _LAST:
        _kept_chars[0] -= _LAST.pop(next(iter(_LAST))).chars


def parse_fast(text: str, families: frozenset[str] | None = None, source: str = "") -> Page | None:
    """Every sample's name, labels and value, the family types and the page's layout; None: use the full parser.

    With ``families``, the samples of typed families not in it are dropped before their value is
    read (a watch that knows its engine reads only the series its map uses); every ``# TYPE`` is
    still recorded. The layout is None when the rows do not follow one (a timestamp, a NaN).
    The layout of ``source``'s last page is kept, as Prometheus keeps a scrape cache per target:
    a page that differs from it only in its numbers is read through it.
    """
    if "\\" in text:
        return None
    pieces = PIECE.split(text)  # text, number, text, number, ..., text
    between = pieces[::2]
    key = (source, families)
    layout = _LAST.get(key)
    if layout is not None and layout.between == between:
        return layout.read(pieces[1::2])
    whole = _LAST.get((source, None))
    if families is not None and whole is not None and whole.between == between:  # read in full before
        layout = whole.narrowed(families)  # (a watch's first poll, its engine not known yet)
        _remember(key, layout)
        return layout.read(pieces[1::2])
    found = _lines(text, families)
    if found is None:
        return None
    rows, types, at, owners = found
    layout = None
    if at is not None and rows and all(r[2] == r[2] for r in rows):
        layout = _layout(text, between, at, rows, owners, types)
    _remember(key, layout)
    return _page(rows if layout else [r for r in rows if r[2] == r[2]], types, layout)


def _layout(
    text: str, between: list[str], at: list[int], rows: list[Row], owners: list[str], types: dict[str, str]
) -> Layout | None:
    """The layout of a page whose row ``k`` took its value from the last field of line ``at[k]``."""
    if len(text.splitlines()) != text.count("\n") + (not text.endswith("\n")):
        return None  # a line break other than \n: splitlines' line numbers are not the pieces'
    if not KINDS.issuperset(types.values()):
        return None  # an odd type might be a PIECE: two pages of one layout could differ in it
    piece_of_line: dict[int, int] = {}
    line = 0
    for k in range(len(between) - 1):  # the number k follows between[k]
        line += between[k].count("\n")
        piece_of_line[line] = k
    picked = [piece_of_line.get(i, -1) for i in at]
    if -1 in picked:
        return None
    return Layout(between, picked, rows, owners, types, len(text))


def _lines(
    text: str, families: frozenset[str] | None
) -> tuple[list[Row], dict[str, str], list[int] | None, list[str]] | None:
    """The rows (NaN kept), the types, each row's line and typed family ('' when untyped).

    The lines are None when some row's value is not its line's last field (a timestamp follows).
    """
    out: list[Row] = []
    owners: list[str] = []
    at: list[int] | None = []
    types: dict[str, str] = {}
    family = kind = ""
    heads = _heads(family, kind)
    skip = False  # the samples of the current family are not wanted
    for number, line in enumerate(text.splitlines()):
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
            if value_text != line.rpartition(" ")[2]:
                at = None  # a timestamp follows the value
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
            out.append((shown, lab, float(value_text)))
        except ValueError:
            return None
        owners.append(after)
        if at is not None:
            at.append(number)
    return out, types, at, owners
