from rooftop.core.points import Phase
from rooftop.diagnose.rules.prefill_bound import prefill_bound


def test_compute_bound_prefill(result_of, codes):
    assert codes(result_of(phase=Phase.PREFILL, batch=1, prompt=2048)) == ["prefill-compute-bound"]


def test_short_prefill_still_memory_bound(result_of, codes):
    r = result_of(phase=Phase.PREFILL, batch=1, prompt=64)
    assert codes(r) == ["prefill-memory-bound"]
    assert r.findings[0].evidence["intensity_flop_per_byte"] < r.findings[0].evidence["ridge_flop_per_byte"]


def test_prefill_bound_without_totals_finds_nothing(evidence):
    # a rule never raises on missing data: no step totals, no finding
    assert prefill_bound(evidence()) == []
