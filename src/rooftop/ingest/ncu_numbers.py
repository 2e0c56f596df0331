"""How an Nsight Compute export writes its numbers: the thousands separator and the decimal mark.

ncu formats values with the locale of the machine it ran on: ``1,234.5`` under en_US, ``1.234,5``
under de_DE or es_ES (a Windows machine set to Spanish wrote ``"117.344"`` ns for 117,344 ns and
``"27.595.520"`` bytes). One export is one locale, so the separators are decided once from all its
values (``detect``) and every value is then read with them (``NumberFormat.parse``):

* two or more ``.`` (``27.595.520``), ``.`` before ``,`` (``1.234,5``), or a ``,`` not followed by
  exactly three digits (``65,77``) say ``.`` groups thousands and ``,`` is the decimal mark;
* the mirror cases (``1,234,567``, ``1,234.5``, ``17.50``) say en_US;
* ``1,234`` or ``117.344`` alone say nothing. The majority wins; a file where nothing
  disambiguates (or a tie) is read as en_US, as before.

Spaces (a no-break or narrow no-break space: fr_FR's ``27 595 520``) are dropped as grouping.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import msgspec

_SPACES = (" ", "\u00a0", "\u202f")
_NUMBER = re.compile(r"[-+]?[0-9][0-9.,]*")


class NumberFormat(msgspec.Struct, frozen=True):
    """A locale's separators: ``thousands`` is dropped, ``decimal`` is the decimal mark."""

    thousands: str
    decimal: str

    @property
    def example(self) -> str:
        """How this locale writes one thousand two hundred thirty-four and a half: '1,234.5'."""
        return f"1{self.thousands}234{self.decimal}5"

    def parse(self, text: str) -> float:
        """The number ``text`` writes; ValueError when it is not one."""
        raw = text.strip()
        for space in _SPACES:
            raw = raw.replace(space, "")
        raw = raw.replace(self.thousands, "")
        return float(raw.replace(self.decimal, ".") if self.decimal != "." else raw)


EN_US = NumberFormat(",", ".")
DECIMAL_COMMA = NumberFormat(".", ",")


def vote(cell: str) -> NumberFormat | None:
    """The format one value can only be written in, or None when it fits both (or is no number)."""
    text = "".join(c for c in cell.strip() if c not in _SPACES)
    if not _NUMBER.fullmatch(text):
        return None
    dots, commas = text.count("."), text.count(",")
    if dots and commas:
        return EN_US if text.rfind(".") > text.rfind(",") else DECIMAL_COMMA
    if dots > 1 or (commas == 1 and len(text) - text.index(",") != 4):
        return DECIMAL_COMMA  # 27.595.520, or 65,77: a comma that does not group three digits
    if commas > 1 or (dots == 1 and len(text) - text.index(".") != 4):
        return EN_US  # 1,234,567, or 17.50
    return None


def detect(cells: Iterable[str]) -> NumberFormat:
    """The separators ``cells`` (every value of one export) are written with; en_US when nothing tells."""
    comma = point = 0
    for cell in cells:
        found = vote(cell)
        comma += found is DECIMAL_COMMA
        point += found is EN_US
    return DECIMAL_COMMA if comma > point else EN_US
