from rooftop.diagnose.remedies import CHECK_FIRST, REMEDIES


def test_every_bottleneck_of_seed_003_table():
    # seed 003 §13: weight bandwidth, KV bandwidth, attention IO, compute, launch, communication, scheduler
    expected = {"weight-bandwidth", "kv-bandwidth", "attention-io", "compute", "launch", "communication", "scheduler"}
    assert expected <= set(REMEDIES) and expected <= set(CHECK_FIRST)
    for remedies in REMEDIES.values():
        assert all(r.action and r.side_effects for r in remedies)  # never a remedy without its side effects
