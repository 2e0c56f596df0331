"""The command line: parse, call the library, render. No logic of its own."""

from __future__ import annotations


def run() -> None:
    """The process behind ``rooftop`` and ``python -m rooftop``: the command group's :func:`main`.

    It runs under a young-generation threshold of 50,000 allocations, not 700, set before click
    and the command's modules import: the imports and a small trace's import made ~70
    collections (8 ms of a 0.17 s ``rooftop import``) that freed nothing. At the end the objects
    are frozen out of the interpreter's final collections, which traversed every one of them
    (~20 ms; the memory is the OS's to take back).
    """
    import gc

    from rooftop.core.collect import fewer_collections

    with fewer_collections():
        try:
            from rooftop.cli.main import main

            main()
        finally:
            gc.freeze()  # before the threshold is restored: else one last collection of the young objects
