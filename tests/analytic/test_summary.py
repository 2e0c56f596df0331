import numpy as np
import pytest

from rooftop.analytic.engine import evaluate
from rooftop.analytic.memory import budget
from rooftop.analytic.summary import memory_at, totals_at
from rooftop.core.points import Phase
from rooftop.core.workload import Workload


def test_totals_of_grid_cell_equal_scalar(tiny, toy_roofs):
    grid = evaluate(tiny, Workload(phase=Phase.DECODE, batch=np.array([1, 8]), context=5), toy_roofs)
    one = evaluate(tiny, Workload(phase=Phase.DECODE, batch=8, context=5), toy_roofs)
    assert totals_at(grid, 1) == totals_at(one)


def test_totals_fields(tiny, toy_roofs):
    t = totals_at(evaluate(tiny, Workload(phase=Phase.PREFILL, batch=1, prompt=4), toy_roofs))
    assert t.phase == "prefill" and t.tokens == 4
    assert t.bytes == pytest.approx(t.weight_bytes + t.kv_read_bytes + t.kv_write_bytes + t.activation_bytes)
    assert t.bound.startswith("memory")  # toy ridge is 100 FLOP/B


def test_memory_record(tiny, toy_roofs):
    w = Workload(phase=Phase.DECODE, batch=2, context=3)
    m = memory_at(budget(tiny, w, toy_roofs.capacity_bytes))
    assert m["kv_bytes_per_sequence"] == 32 * 4  # 32 B/token x (3 + 1) tokens
    assert m["kv_cache_bytes"] == 2 * 128 and m["fits"] and m["max_batch"] > 1000
