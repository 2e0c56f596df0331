"""The library facade: everything the CLI does, a notebook can do.

One module per entry point (``analysis``, ``profile``, ``ingest``, ``sweep``, ``bench``...), each
composing the sources below it and returning a :class:`rooftop.core.artifact.Run`. This is the
layer where analytic, measured and live points meet; the sources never import each other.

The names below load on first use, so a command pays only for its own entry point
(``rooftop import`` does not load the model catalog that ``analyze`` needs).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the types, for mypy and editors; at run time __getattr__ loads them
    from rooftop.api.analysis import analyze as analyze
    from rooftop.api.analysis import analyze_one as analyze_one
    from rooftop.api.analysis import workloads_for as workloads_for
    from rooftop.api.ingest import import_path as import_path

_LAZY = {
    "analyze": "rooftop.api.analysis",
    "analyze_one": "rooftop.api.analysis",
    "workloads_for": "rooftop.api.analysis",
    "import_path": "rooftop.api.ingest",
}
__all__ = ["analyze", "analyze_one", "import_path", "workloads_for"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'rooftop.api' has no attribute {name!r}")
