import numpy as np
import pytest

from rooftop.analytic.engine import BOUNDS, evaluate, memory_kind, to_points
from rooftop.core.points import Phase, Source
from rooftop.core.workload import Workload
from rooftop.errors import CatalogError


def test_each_op_is_timed_at_its_own_roof(tiny, toy_roofs):
    ev = evaluate(tiny, Workload(phase=Phase.DECODE, batch=1, context=3), toy_roofs)
    by = {t.op.name: t for t in ev.ops}
    q = by["q_proj"]  # 128 FLOP, bytes = 64*2 + 8*2 + 8*2 = 160 -> max(0.128 s, 16 s) = 16 s, memory
    assert float(q.time_s) == pytest.approx(16.0)
    assert BOUNDS[int(q.bound)] == "memory"
    soft = by["softmax"]  # flash: no bytes; 5 x 2 heads x 4 pairs = 40 FLOP on the vector roof (100 FLOP/s)
    assert float(soft.time_s) == pytest.approx(0.4)
    assert BOUNDS[int(soft.bound)] == "compute"
    assert float(ev.time_s) == pytest.approx(sum(float(t.time_s) * t.op.count for t in ev.ops))


def test_metrics_definitions(tiny, toy_roofs):
    ev = evaluate(tiny, Workload(phase=Phase.DECODE, batch=1, context=3), toy_roofs)
    t = float(ev.time_s)
    assert float(ev.mfu) == pytest.approx(float(ev.total("model_flops")) / t / 1000)
    assert float(ev.hfu) == pytest.approx(float(ev.total("flops")) / t / 1000)
    useful = float(ev.total("weight_bytes") + ev.total("kv_read_bytes"))
    assert float(ev.mbu) == pytest.approx(useful / t / 10)
    assert float(ev.hfu) >= float(ev.mfu)


def test_grid_matches_scalars(tiny, toy_roofs):
    batches = np.array([1, 4, 16])
    grid = evaluate(tiny, Workload(phase=Phase.DECODE, batch=batches, context=7), toy_roofs)
    for i, b in enumerate(batches):
        one = evaluate(tiny, Workload(phase=Phase.DECODE, batch=int(b), context=7), toy_roofs)
        assert float(grid.time_s[i]) == pytest.approx(float(one.time_s))


def test_points_carry_the_split(tiny, toy_roofs):
    ev = evaluate(tiny, Workload(phase=Phase.DECODE, batch=1, context=3), toy_roofs)
    points = {p.label: p for p in to_points(ev)}
    q = points["q_proj"]
    assert q.source is Source.ANALYTIC and q.count == 2
    assert q.flops == 2 * 128  # totals over the 2 layers
    assert q.traffic is not None and q.traffic.weight_bytes == 2 * 128
    assert q.bound == "memory:weights"
    assert points["attn_score"].bound == "memory:kv"


def test_link_bound_all_reduce(tiny, toy_roofs):
    ev = evaluate(tiny, Workload(phase=Phase.DECODE, batch=1, context=3, tp=2), toy_roofs)
    ar = {p.label: p for p in to_points(ev)}["tp_allreduce_mlp"]
    assert ar.bound == "link"
    assert ar.time_s == pytest.approx(2 * 16 / 1.0)  # 2 layers x 16 link bytes at 1 B/s


def test_tp_needs_a_link_roof(tiny, toy_roofs):
    from msgspec.structs import replace

    no_link = replace(toy_roofs, memory=toy_roofs.memory[:1])
    with pytest.raises(CatalogError, match="interconnect"):
        evaluate(tiny, Workload(phase=Phase.DECODE, tp=2), no_link)


def test_memory_kind():
    assert memory_kind(10, 1, 1) == "weights"
    assert memory_kind(1, 10, 1) == "kv"
    assert memory_kind(1, 1, 10) == "activations"
