"""The words of a GPU's reported name, and the model word among them ('NVIDIA A100-SXM4-80GB' -> 'a100').

Shared by the catalog (which entries a name points to) and the hardware-mismatch rule (whether the
roofs are another model's); imports nothing heavy, so a rule can use it without loading the catalog.
"""

from __future__ import annotations

import re

VENDOR_WORDS = frozenset({"nvidia", "amd", "tesla"})


def words(name: str) -> list[str]:
    """Lower-case alphanumeric words of ``name`` in order, vendor words left out."""
    return [w for w in re.findall(r"[a-z0-9]+", name.lower()) if w not in VENDOR_WORDS]


def model_word(name: str) -> str:
    """The first word with a digit (A100, H200, MI300X, 4090, B200), or '' when there is none."""
    return next((w for w in words(name) if any(c.isdigit() for c in w)), "")
