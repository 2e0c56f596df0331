"""The library facade: everything the CLI does, a notebook can do.

One module per entry point (``analyze``; later ``profile``, ``ingest``, ``sweep``, ``bench``...),
each composing the sources below it and returning a :class:`rooftop.core.artifact.Run`. This is
the layer where analytic, measured and live points meet; the sources never import each other.
"""

from __future__ import annotations

from typing import Any

# The function `analyze` shares its name with the module `rooftop.api.analyze`, so it is bound here
# eagerly (else importing the submodule would shadow it). `import_path` loads the trace readers
# only when asked for, so analytic commands do not pay for them.
from rooftop.api.analyze import analyze, analyze_one, workloads_for

__all__ = ["analyze", "analyze_one", "import_path", "workloads_for"]


def __getattr__(name: str) -> Any:
    if name == "import_path":
        from rooftop.api.ingest import import_path

        return import_path
    raise AttributeError(f"module 'rooftop.api' has no attribute {name!r}")
