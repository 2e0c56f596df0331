"""The library facade: everything the CLI does, a notebook can do.

One module per entry point (``analyze``; later ``profile``, ``ingest``, ``sweep``, ``bench``...),
each composing the sources below it and returning a :class:`rooftop.core.artifact.Run`. This is
the layer where analytic, measured and live points meet; the sources never import each other.
"""

from rooftop.api.analyze import analyze, analyze_one, workloads_for
from rooftop.api.ingest import import_path

__all__ = ["analyze", "analyze_one", "import_path", "workloads_for"]
