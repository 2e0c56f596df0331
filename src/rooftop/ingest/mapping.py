"""Load the versioned vocabulary files shipped in ``rooftop/ingest/mappings/``."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any


@cache
def load(name: str) -> dict[str, Any]:
    """The parsed mapping ``mappings/<name>.toml`` (e.g. ``kineto_v1``); cached, read-only by convention."""
    text = resources.files("rooftop.ingest").joinpath(f"mappings/{name}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)
