from rooftop.core.points import Source
from rooftop.diagnose.rules.guard_bandwidth_latency import guard_bandwidth_latency
from tests.diagnose.rules.conftest import make_point

# analytic points summing to 4 ms of roofline time (measured points are not counted)
ANALYTIC = [make_point("q_proj", 1e-3, Source.ANALYTIC), make_point("lm_head", 3e-3, Source.ANALYTIC)]
MEASURED = [make_point("lm_head", 9e-3)]


def test_step_well_above_the_roofline_time_fires(evidence):
    # 10 ms measured / 4 ms roofline = 2.5 ≥ 1.3
    (f,) = guard_bandwidth_latency(evidence(ANALYTIC + MEASURED, profile={"step_time_s": 10e-3}))
    assert f.code == "guard-roof-is-lower-bound" and f.severity == "info"
    assert f.evidence == {"measured_step_s": 10e-3, "roofline_step_s": 4e-3, "ratio": 2.5}
    assert "2.5× the roofline time (10.00 ms vs 4.00 ms)" in f.title


def test_step_close_to_the_roof_or_no_profile_is_silent(evidence):
    assert guard_bandwidth_latency(evidence(ANALYTIC, profile={"step_time_s": 5e-3})) == []  # 1.25 < 1.3
    assert guard_bandwidth_latency(evidence(ANALYTIC)) == []  # analytic run: nothing measured
    assert guard_bandwidth_latency(evidence(MEASURED, profile={"step_time_s": 5e-3})) == []  # no roofline time
