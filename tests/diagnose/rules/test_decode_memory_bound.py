from rooftop.core.points import Phase
from rooftop.diagnose.rules.decode_memory_bound import decode_memory_bound


def test_weight_bound_at_batch_1(result_of, codes):
    r = result_of(phase=Phase.DECODE, batch=1, context=2048)
    assert codes(r) == ["decode-weight-bound"]
    f = r.findings[0]
    assert f.evidence["weight_share_of_bytes"] > 0.9 and f.evidence["ridge_flop_per_byte"] == 295.3
    assert any("batching" in rem.action for rem in f.remedies)


def test_kv_bound_at_long_context(result_of, codes):
    # 8 sequences x 32k tokens x 131,072 B = 34 GB of KV vs 16 GB of weights
    r = result_of(phase=Phase.DECODE, batch=8, context=32768)
    assert codes(r)[0] == "decode-kv-bound"  # (plus the info-level guard for batch >= 8)
    assert r.findings[0].bottleneck == "kv-bandwidth"


def test_decode_memory_bound_without_totals_finds_nothing(evidence):
    # a rule never raises on missing data: no step totals, no finding
    assert decode_memory_bound(evidence()) == []
