import itertools

import pytest

from rooftop.measure.timing import Samples, do_bench


def test_samples_quantiles_and_spread():
    s = Samples((2.0, 1.0, 4.0, 3.0, 5.0))
    assert s.best_s == 1.0
    assert s.median_s == 3.0
    assert s.spread == pytest.approx(2.0)  # (3 - 1) / 1
    assert s.to_dict()["reps"] == 5


def test_do_bench_takes_reps_from_budget_and_keeps_every_sample():
    ticks = itertools.count()
    calls = []
    # a fake timer: every repetition "takes" 0.01 s; budget 0.1 s -> 10 repetitions
    result = do_bench(lambda: calls.append(1), budget_s=0.1, warmup_s=0.02, timer=lambda fn: (fn(), 0.01)[1])
    assert len(result.times_s) == 10
    assert len(calls) == 1 + 2 + 10  # estimate + warm-up (0.02 / 0.01) + repetitions
    del ticks


def test_do_bench_flushes_before_each_rep():
    flushed = []
    do_bench(lambda: None, budget_s=0.03, warmup_s=0.0, flush=lambda: flushed.append(1), timer=lambda fn: 0.01)
    assert len(flushed) == 3
