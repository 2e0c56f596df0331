"""Fewer garbage collections while a command runs, or a serving loop (a watch, a load generator).

CPython collects the young generation every 700 net allocations. A command's start-up imports
and a small trace's import made ~70 such collections that freed nothing (8 ms of a 0.17 s
`rooftop import`, benchmarks/bench_cold_start.py); the console script runs under 50,000. The
serving loops allocate a few hundred short-lived objects per scrape or request, and nearly every
scrape paid a collection that traversed them (benchmarks/bench_watch_many.py, bench_loadgen.py):
`watch` of 100 endpoints 11.8 → 9.1 % of a core; the load generator 0.53 → 0.45–0.51 ms of CPU
per request at rate = inf. Nothing lives longer: the objects die by reference count, and cycles
are still collected, only less often.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def fewer_collections(young: int = 50_000) -> Iterator[None]:
    """Collect the youngest generation after ``young`` net allocations; the old threshold after."""
    before = gc.get_threshold()
    gc.set_threshold(young, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
