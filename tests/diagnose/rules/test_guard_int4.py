import pytest

from rooftop.core.points import Phase
from rooftop.diagnose.rules.guard_int4 import guard_int4
from tests.diagnose.rules.conftest import make_totals


def test_int4_weights_are_not_4x_faster(evidence):
    # 150 MB of 4-bit weights out of 200 MB: 75 % of the bytes. As 16-bit the weights would be 600 MB,
    # so the step would move 50 + 600 = 650 MB: at the roofs at most 650 / 200 = 3.25× faster, not 4×.
    ev = evidence(totals=make_totals(), workload={"weight_dtype": "int4", "compute_dtype": "bf16"})
    (f,) = guard_int4(ev)
    assert f.code == "guard-int4-not-4x" and f.bottleneck == "guard"
    assert f.evidence == {"weight_share_of_bytes": 0.75, "speedup_bound_vs_16bit": 3.25}
    assert "at most 3.2× faster" in f.title and "bf16 roof" in f.title


@pytest.mark.parametrize("dtype", ["bf16", "fp8", "int8", None])
def test_other_weight_dtypes_are_silent(evidence, dtype):
    assert guard_int4(evidence(totals=make_totals(), workload={"weight_dtype": dtype})) == []


def test_no_totals_or_no_bytes_is_silent(evidence):
    assert guard_int4(evidence(workload={"weight_dtype": "int4"})) == []
    assert guard_int4(evidence(totals=make_totals(bytes=0.0), workload={"weight_dtype": "fp4"})) == []


def test_analyze_of_an_int4_model_carries_the_guard(result_of, codes):
    r = result_of(phase=Phase.DECODE, batch=1, context=1024, weight_dtype="int4")
    assert "guard-int4-not-4x" in codes(r)
