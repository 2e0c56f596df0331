import pytest

from rooftop.analytic.ops.p2p import p2p_send
from rooftop.analytic.registry import OpKind, cost


def test_p2p_send_moves_the_hidden_state_once():
    c = p2p_send(tokens=8, width=4096, act_bytes=2.0)
    assert float(c.link_bytes) == 65_536  # 8 tokens × 4096 × 2 B
    assert float(c.act_in_bytes) == float(c.act_out_bytes) == 65_536  # read on one GPU, written on the next
    assert float(c.flops) == 0.0 and c.unit == "vector"
    registered = cost(OpKind.P2P_SEND, tokens=1, width=7168, act_bytes=2.0)
    assert float(registered.link_bytes) == pytest.approx(14_336)  # 7168 × 2 B
