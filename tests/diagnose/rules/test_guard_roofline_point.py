from rooftop.diagnose.rules.guard_roofline_point import guard_roofline_point
from tests.diagnose.rules.conftest import make_totals


def test_large_decode_batch_fires_with_its_tpot(evidence):
    # intensity 1 GFLOP / 200 MB = 5 FLOP/B; the whole 10 ms step is each sequence's TPOT
    (f,) = guard_roofline_point(evidence(totals=make_totals(), workload={"batch": 8}))
    assert f.code == "guard-roofline-point-not-product"
    assert f.evidence == {"batch": 8, "tpot_s": 10e-3, "intensity": 5.0}
    assert "batch 8" in f.title and "10.00 ms" in f.title


def test_small_batch_prefill_or_missing_totals_is_silent(evidence):
    assert guard_roofline_point(evidence(totals=make_totals(), workload={"batch": 7})) == []  # < 8
    assert guard_roofline_point(evidence(totals=make_totals(phase="prefill"), workload={"batch": 64})) == []
    assert guard_roofline_point(evidence(workload={"batch": 64})) == []
    assert guard_roofline_point(evidence(totals=make_totals(), workload={"batch": "64"})) == []  # not an int
