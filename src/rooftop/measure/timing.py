"""A do_bench-style timer that keeps the whole distribution (after Triton's ``testing.do_bench``).

Call once to warm up and estimate the cost; take warm-up and repetition counts from a time
budget; on CUDA flush L2 before each repetition and time with device events; return every
sample, so that callers report best-of-N as the sustained figure and the spread beside it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import msgspec
import numpy as np


class Samples(msgspec.Struct, frozen=True):
    """Per-repetition times in seconds, with the quantiles a report needs."""

    times_s: tuple[float, ...]

    @property
    def best_s(self) -> float:
        """Fastest repetition: the sustained figure (least disturbed by other processes)."""
        return min(self.times_s)

    @property
    def median_s(self) -> float:
        """Median repetition."""
        return float(np.median(self.times_s))

    def quantile_s(self, q: float) -> float:
        """The ``q`` quantile of the repetitions (0..1)."""
        return float(np.quantile(self.times_s, q))

    @property
    def spread(self) -> float:
        """Relative spread (median - best) / best: how much a shared machine disturbs the figure."""
        return (self.median_s - self.best_s) / self.best_s if self.best_s > 0 else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form (best, median, p10/p90, spread and the count)."""
        return {
            "best_s": self.best_s,
            "median_s": self.median_s,
            "p10_s": self.quantile_s(0.1),
            "p90_s": self.quantile_s(0.9),
            "spread": self.spread,
            "reps": len(self.times_s),
        }


def do_bench(
    fn: Callable[[], Any],
    budget_s: float = 0.5,
    warmup_s: float = 0.05,
    min_reps: int = 3,
    max_reps: int = 1000,
    sync: Callable[[], Any] | None = None,
    flush: Callable[[], Any] | None = None,
    timer: Callable[[Callable[[], Any]], float] | None = None,
) -> Samples:
    """Time ``fn`` repeatedly within ``budget_s``; return every repetition's time.

    ``sync`` waits for the device (CUDA: torch.cuda.synchronize); ``flush`` runs untimed before
    each repetition (CUDA: overwrite a buffer larger than L2); ``timer`` times one call of its
    argument (CUDA: device events). On CPU the default is a perf_counter around the call.
    """
    sync = sync or (lambda: None)
    run_once = timer or _wall_timer(sync)
    first = run_once(fn)  # compile / allocate / page in
    estimate = max(first, 1e-7)
    warm_reps = max(1, min(int(warmup_s / estimate), max_reps))
    for _ in range(warm_reps):
        fn()
    sync()
    reps = int(min(max(budget_s / estimate, min_reps), max_reps))
    times = []
    for _ in range(reps):
        if flush is not None:
            flush()
        times.append(run_once(fn))
    return Samples(tuple(times))


def _wall_timer(sync: Callable[[], Any]) -> Callable[[Callable[[], Any]], float]:
    def run_once(fn: Callable[[], Any]) -> float:
        sync()
        start = time.perf_counter()
        fn()
        sync()
        return time.perf_counter() - start

    return run_once
