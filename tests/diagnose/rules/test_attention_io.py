from rooftop.core.points import Phase


def test_materialized_long_prefill_flags_attention_io(result_of, codes):
    r = result_of(phase=Phase.PREFILL, batch=1, prompt=16384, attention="materialized")
    assert "attention-io" in codes(r)
    assert "attention-io" not in codes(result_of(phase=Phase.PREFILL, batch=1, prompt=16384))
