from rooftop.diagnose.rules.launch_bound import launch_bound


def profile(gap_s: float, step_s: float = 10e-3) -> dict:
    return {"gap_s": gap_s, "step_time_s": step_s, "gap_share": gap_s / step_s}


def test_a_third_of_the_step_between_ops_warns(evidence):
    # 3.5 ms of gaps in a 10 ms step = 35 % ≥ 30 % -> warn
    (f,) = launch_bound(evidence(profile=profile(3.5e-3), workload={"phase": "decode"}))
    assert f.code == "launch-bound-step" and f.severity == "warn" and f.bottleneck == "launch"
    assert f.evidence["gap_share"] == 0.35
    assert "35% of the decode step" in f.title and "3.50 ms of 10.00 ms" in f.title
    assert f.remedies  # the §13 launch row


def test_between_info_and_warn_is_info(evidence):
    (f,) = launch_bound(evidence(profile=profile(2e-3)))  # 20 %: ≥ 15 %, < 30 %
    assert f.severity == "info"


def test_few_gaps_or_no_profile_say_nothing(evidence):
    assert launch_bound(evidence(profile=profile(1e-3))) == []  # 10 % < 15 %
    assert launch_bound(evidence()) == []  # not a profile: no gap figure
