from rooftop.core.points import Phase
from rooftop.diagnose.rules.attention_io import attention_io


def test_materialized_long_prefill_flags_attention_io(result_of, codes):
    r = result_of(phase=Phase.PREFILL, batch=1, prompt=16384, attention="materialized")
    assert "attention-io" in codes(r)
    assert "attention-io" not in codes(result_of(phase=Phase.PREFILL, batch=1, prompt=16384))


def test_attention_io_without_totals_finds_nothing(evidence):
    # a rule never raises on missing data: no step totals, no finding
    assert attention_io(evidence()) == []
