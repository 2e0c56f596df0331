"""rooftop — a roofline profiler for LLM serving.

``import rooftop`` is light: it loads no torch, transformers or matplotlib and does no I/O.
The library entry points live in :mod:`rooftop.api`.
"""

__version__ = "0.1.0"
