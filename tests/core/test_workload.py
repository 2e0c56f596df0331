import numpy as np
import pytest

from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError


def test_phase_shapes():
    d = Workload(phase=Phase.DECODE, batch=8, context=100)
    assert float(d.new_tokens) == 1 and float(d.past_tokens) == 100 and float(d.tokens) == 8
    p = Workload(phase=Phase.PREFILL, batch=2, prompt=100, cached_prefix=30)
    assert float(p.new_tokens) == 70 and float(p.past_tokens) == 30 and float(p.tokens) == 140
    assert float(p.kv_tokens_after) == 100


def test_compute_dtype_rules():
    assert Workload(weight_dtype="fp8").compute == "fp8"
    assert Workload(weight_dtype="int4").compute == "bf16"  # W4A16 dequantises to the activation dtype
    assert Workload(weight_dtype="int8", compute_dtype="int8").compute == "int8"


@pytest.mark.parametrize(
    "kw",
    [
        {"batch": -1},
        {"batch": 0},
        {"prompt": 0},
        {"context": -5},
        {"tp": 0},
        {"weight_dtype": "int3"},
        {"attention": "sparse"},
        {"prompt": 10, "cached_prefix": 10},
        {"batch": np.array([])},
    ],
)
def test_impossible_workloads(kw):
    with pytest.raises(WorkloadError):
        Workload(**kw)


def test_scalar_from_grid():
    g = Workload(phase=Phase.DECODE, batch=np.array([[1], [2]]), context=np.array([[10, 20, 30]]))
    one = g.scalar((1, 2))
    assert one.batch == 2 and one.context == 30
    assert one.describe()["batch"] == 2


def test_counts_are_bounded():
    # issue 11: --cohort a=1e20:1 printed "TTFT 3.03e+30 s" with exit 0; 2**63 wrapped negative in numpy
    with pytest.raises(WorkloadError, match=r"^prompt must be ≤ 16,777,216, got 1e\+20$"):
        Workload(phase=Phase.PREFILL, prompt=10**20)
    with pytest.raises(WorkloadError, match=r"^batch must be ≤ 16,777,216, got 9.223e\+18$"):
        Workload(batch=np.array([1, 2**63 - 1]))
    assert Workload(context=1 << 24).context == 1 << 24
