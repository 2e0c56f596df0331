import math

import msgspec

from rooftop.diagnose.rules.guard_physical_range import guard_physical_range
from tests.diagnose.rules.conftest import make_point, make_totals


def test_shares_above_the_roof_and_negative_numbers_are_flagged(evidence):
    # issue 11: a negative expert width printed "MBU 117,897 %" and "tokens/s -2,517.5" with exit 0
    (f,) = guard_physical_range(evidence(totals=make_totals(mbu=1178.97, tokens=-2517.5)))
    assert f.code == "guard-out-of-physical-range" and f.severity == "critical"
    assert f.evidence == {"mbu": 1178.97, "tokens": -2517.5}
    assert f.title.startswith("Numbers outside their physical range: mbu 1179, tokens -2518.")


def test_points_with_negative_or_infinite_numbers(evidence):
    bad = make_point("gemm", -1e-3)
    inf = make_point("attn", 1e-3)
    msgspec.structs.force_setattr(inf, "bytes", math.inf)  # past the validation
    (f,) = guard_physical_range(evidence(points=[bad, inf]))
    assert f.evidence == {"gemm.time_s": -1e-3, "attn.bytes": "inf"}


def test_in_range_and_noise_are_silent(evidence):
    # MBU 104 % is inside the 5 % slack (datasheet rounding, timer noise); NaN is "unknown", not wrong
    assert (
        guard_physical_range(evidence(totals=make_totals(mbu=1.04, hfu=math.nan), points=[make_point("x", 1e-3)])) == []
    )
    assert guard_physical_range(evidence()) == []
