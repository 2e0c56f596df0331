"""Rendering: terminal tables, figures, HTML, JSON. Compute functions never print."""

FORMATS = ("png", "svg")  # what the roofline figure is written as (here: the CLI names them without matplotlib)
PLOT_SUFFIXES = tuple(f".{f}" for f in FORMATS)
