import math

import pytest

from rooftop.core.points import Phase, RooflinePoint, Source, Traffic, total_time_s
from rooftop.core.roofs import ComputeRoof, MemoryRoof, Roofs

ROOFS = Roofs("x", (ComputeRoof("bf16", 100.0), ComputeRoof("fp32", 10.0)), (MemoryRoof("hbm", 10.0),))


def point(**kw):
    base = {
        "label": "op",
        "op": "gemm",
        "phase": Phase.DECODE,
        "flops": 100.0,
        "bytes": 50.0,
        "time_s": 10.0,
        "dtype": "bf16",
        "source": Source.MEASURED,
    }
    return RooflinePoint(**(base | kw))


def test_derived_quantities():
    p = point()
    assert p.intensity == 2.0 and p.flop_per_s == 10.0 and p.bytes_per_s == 5.0
    assert p.attainable_flop_per_s(ROOFS) == 20.0  # min(100, 10 B/s x 2 FLOP/B)
    assert p.roof_efficiency(ROOFS) == 0.5


def test_zero_flop_ops_use_bandwidth():
    p = point(flops=0.0, bytes=50.0, time_s=10.0)
    assert p.roof_efficiency(ROOFS) == 0.5  # 5 B/s of 10
    assert point(bytes=0.0).intensity == math.inf
    assert math.isnan(point(flops=0.0, bytes=0.0).intensity)  # a timed-only kernel: 0/0, no intensity


def test_unknown_dtype_falls_back():
    assert point(dtype="int4").attainable_flop_per_s(ROOFS) == 20.0


def test_traffic_sums():
    t = Traffic(1, 2, 3, 4, 5)
    assert t.activation_bytes == 5 and t.kv_bytes == 9 and t.total_bytes == 15


def test_total_time():
    assert total_time_s([point(time_s=1.0), point(time_s=None), point(time_s=2.0)]) == pytest.approx(3.0)
