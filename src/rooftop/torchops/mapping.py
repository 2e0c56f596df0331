"""Load the versioned vocabulary files shipped in ``rooftop/torchops/mappings/``."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from rooftop.core.packaged import load_toml

# a plain file beside this module, not importlib.resources (core/packaged.py says why)
_FOLDER = Path(__file__).with_name("mappings")


@cache
def load(name: str) -> dict[str, Any]:
    """The parsed mapping ``mappings/<name>.toml`` (e.g. ``ops_v2``); cached, read-only by convention."""
    return load_toml(_FOLDER / f"{name}.toml")
