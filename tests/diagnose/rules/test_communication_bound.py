from rooftop.core.points import Phase
from rooftop.diagnose.rules.communication_bound import communication_bound


def test_tp8_decode_on_pcie_class_link_is_communication_bound(result_of, codes):
    # l40s has no NVLink in the catalog; use h100-pcie (600 GB/s bridge -> 300 GB/s per direction) at tp=8,
    # batch 256: all-reduce 2 x 7/8 x 256 x 8192 x 2 B per layer x 2 = ~14.7 MB/layer at 300 GB/s
    r = result_of(model="llama-3.1-70b", hardware="h100-pcie", phase=Phase.DECODE, batch=256, context=512, tp=8)
    assert "communication-bound" in codes(r)
    assert "communication-bound" not in codes(result_of(phase=Phase.DECODE, batch=1, context=512, tp=1))


def test_communication_bound_without_totals_finds_nothing(evidence):
    # a rule never raises on missing data: no step totals, no finding
    assert communication_bound(evidence()) == []
