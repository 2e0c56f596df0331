from rooftop.diagnose.rules.guard_prefill_compute import guard_prefill_compute
from tests.diagnose.rules.conftest import make_point, make_totals

PREFILL = make_totals(phase="prefill")


def test_prefill_mostly_in_memory_bound_ops_warns(evidence):
    # 6 ms memory-bound + 4 ms compute-bound measured: 60 % ≥ 50 % in memory-bound operators
    points = [make_point("attention", 6e-3, bound="memory"), make_point("q_proj", 4e-3, bound="compute")]
    (f,) = guard_prefill_compute(evidence(points, PREFILL, workload={"prompt": 32, "batch": 1}))
    assert f.code == "guard-prefill-not-compute-bound" and f.severity == "warn"
    assert f.evidence == {"memory_bound_share": 0.6, "prompt": 32}
    assert "60% of its measured time" in f.title


def test_compute_bound_prefill_or_decode_is_silent(evidence):
    points = [make_point("attention", 4e-3, bound="memory"), make_point("q_proj", 6e-3, bound="compute")]
    assert guard_prefill_compute(evidence(points, PREFILL)) == []  # 40 % < 50 %
    memory = [make_point("lm_head", 9e-3, bound="memory")]
    assert guard_prefill_compute(evidence(memory, make_totals(phase="decode"))) == []  # decode is expected
    assert guard_prefill_compute(evidence([], PREFILL)) == []  # nothing measured
