import pytest

from rooftop.analytic.cost import OpCost
from rooftop.analytic.registry import UnmodelledOp, cost, formula, kinds, register


def test_registry_has_every_family():
    assert {
        "gemm",
        "grouped_gemm",
        "attn_score",
        "softmax",
        "attn_value",
        "kv_append",
        "norm",
        "activation",
        "embedding",
        "all_reduce",
    } <= set(kinds())


def test_unknown_kind_is_explicit():
    with pytest.raises(UnmodelledOp, match="rotary"):
        formula("rotary")


def test_duplicate_registration_is_an_error():
    formula("gemm")  # make sure the formulas are loaded
    with pytest.raises(ValueError, match="duplicate"):
        register("gemm")(lambda: OpCost())


def test_cost_dispatches():
    c = cost("gemm", tokens=1, k=2, n=3, weight_bytes_per_elt=1, act_bytes_per_elt=1)
    assert float(c.flops) == 12  # 2*1*2*3


def test_add_costs():
    a = OpCost(flops=1.0, weight_bytes=2.0)
    b = OpCost(flops=3.0, kv_read_bytes=4.0)
    s = a + b
    assert float(s.flops) == 4 and float(s.bytes) == 6
    with pytest.raises(ValueError):
        _ = a + OpCost(unit="vector")
