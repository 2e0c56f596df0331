from rooftop.diagnose.rules.guard_utilisation import guard_utilisation
from tests.diagnose.rules.conftest import make_totals


def test_busy_memory_bound_step_fires(evidence):
    # gaps 20 % of the step -> busy 80 % ≥ 70 %, and the step is memory-bound (MFU 10 %, MBU 100 %)
    (f,) = guard_utilisation(evidence(totals=make_totals(), profile={"gap_share": 0.2}))
    assert f.code == "guard-utilisation-not-compute"
    assert f.evidence == {"busy_share": 0.8, "mfu": 0.1, "mbu": 1.0}
    assert "busy 80% of the step" in f.title and "MFU 10.0%" in f.title


def test_idle_or_compute_bound_or_unprofiled_is_silent(evidence):
    assert guard_utilisation(evidence(totals=make_totals(), profile={"gap_share": 0.4})) == []  # busy 60 %
    compute = make_totals(bound="compute")
    assert guard_utilisation(evidence(totals=compute, profile={"gap_share": 0.0})) == []
    assert guard_utilisation(evidence(totals=make_totals())) == []  # no profile
    assert guard_utilisation(evidence(profile={"gap_share": 0.0})) == []  # no totals
