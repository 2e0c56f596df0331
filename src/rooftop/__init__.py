"""rooftop — a roofline profiler for LLM serving.

``import rooftop`` is light: it loads no torch, transformers, matplotlib or pandas and does no I/O.
The notebook entry points load on first use::

    import rooftop
    run = rooftop.analyze("llama-3.1-8b", "h100-sxm", phase="decode", batch=[1, 64])
    run.to_dataframe()

They are ``analyze``, ``sweep``, ``profile``, ``import_path`` (see docs/api.md and
:mod:`rooftop.api.notebook`); the lower-level entry points live in :mod:`rooftop.api`.
"""

import importlib
from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "analyze", "import_path", "profile", "sweep"]

_NOTEBOOK = ("analyze", "sweep", "profile", "import_path")


def __getattr__(name: str) -> Any:
    if name in _NOTEBOOK:
        # by name, on first use: the package root stays below every layer (core reads __version__ from it)
        return getattr(importlib.import_module("rooftop.api.notebook"), name)
    raise AttributeError(f"module 'rooftop' has no attribute {name!r}")
