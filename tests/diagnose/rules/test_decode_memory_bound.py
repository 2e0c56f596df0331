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


def test_a_host_bound_profile_says_why_mbu_is_low():
    # the H200 profile of Llama-3.2-1B at batch 1: the kernels sit below the ridge, but 96.5 % of the
    # 57.2 ms step is between operators, so the measured MBU is 1 %. The finding said "MBU 1% at the
    # roof" (a WARN): it now says the host, not the roof, binds, and leaves the WARN to launch-bound-step.
    from rooftop.diagnose.engine import Evidence
    from rooftop.diagnose.evidence.profile import ProfileEvidence
    from tests.diagnose.rules.conftest import ROOFS, make_totals

    prof = ProfileEvidence(step_time_s=57.2e-3, gap_s=55.2e-3, gap_share=0.965)
    (f,) = decode_memory_bound(Evidence([], ROOFS, make_totals(mbu=0.01, mfu=0.0002), {}, prof))
    assert f.title.endswith("MBU 1.0% measured, low because 96% of the step is host time between operators")
    assert f.severity == "info" and "at the roof" not in f.title
    busy = ProfileEvidence(step_time_s=10e-3, gap_s=1e-3, gap_share=0.1)  # kernels dominate: plain measured MBU
    (g,) = decode_memory_bound(Evidence([], ROOFS, make_totals(mbu=0.6, mfu=0.0002), {}, busy))
    assert g.title.endswith("MBU 60.0% measured") and g.severity == "warn"
