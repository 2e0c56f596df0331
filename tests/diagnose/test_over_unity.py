"""diagnose.rules.over_unity: utilisation above 100 % is flagged with its likely cause, never printed silently."""

from __future__ import annotations

from rooftop.core.totals import Totals
from rooftop.diagnose.engine import Evidence
from rooftop.diagnose.rules.over_unity import over_unity
from rooftop.hardware.catalog import get_roofs


def _totals(mfu: float, mbu: float) -> Totals:
    return Totals("decode", 1e-3, 1.0, 1e9, 1e9, 1e9, 1e9, 0.0, 0.0, 0.0, 0.0, mfu, mfu, mbu, "memory", 1e15, 1e12)


def test_mbu_over_100_is_flagged_with_a_cause():
    # issue 10: `watch` printed MBU 170 % without a word
    (f,) = over_unity(Evidence((), get_roofs("h100-sxm"), _totals(0.2, 1.7)))
    assert f.code == "mbu-over-100" and f.severity == "warn"
    assert f.title.startswith("MBU 170% is above 100%: the step (1 ms) is shorter than the roof allows")
    assert "cache" in f.title and f.evidence == {"mbu": 1.7, "time_s": 1e-3}


def test_both_and_neither():
    roofs = get_roofs("h100-sxm")
    assert [f.code for f in over_unity(Evidence((), roofs, _totals(1.2, 1.01)))] == ["mbu-over-100", "mfu-over-100"]
    assert over_unity(Evidence((), roofs, _totals(0.9, 1.0))) == []
    assert over_unity(Evidence((), roofs, None)) == []
