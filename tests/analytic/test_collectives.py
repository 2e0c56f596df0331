import pytest

from rooftop.analytic.ops.collectives import all_reduce


def test_ring_all_reduce_bytes():
    # tp=8, one 4096-wide bf16 token: message 8192 B; each GPU sends 2*(7/8)*8192 = 14,336 B
    c = all_reduce(tokens=1, width=4096, act_bytes=2.0, tp=8)
    assert float(c.link_bytes) == 14_336
    assert float(c.bytes) == 0  # timed on the link roof, not HBM


def test_tp1_is_free():
    c = all_reduce(tokens=100, width=4096, act_bytes=2.0, tp=1)
    assert float(c.link_bytes) == 0 and float(c.flops) == 0


@pytest.mark.parametrize("tp", [2, 4, 8])
def test_share_grows_with_tp(tp):
    c = all_reduce(tokens=1, width=1000, act_bytes=1.0, tp=tp)
    assert float(c.link_bytes) == pytest.approx(2 * (tp - 1) / tp * 1000)
