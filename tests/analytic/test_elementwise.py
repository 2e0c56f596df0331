import pytest

from rooftop.analytic.ops.elementwise import activation, activation_flops_per_elt, embedding, norm


def test_rmsnorm_hand_arithmetic():
    c = norm(tokens=2, width=4096, kind="rms", act_bytes=2.0)
    assert float(c.flops) == 4 * 2 * 4096  # 4 FLOPs per element
    assert float(c.act_in_bytes) == float(c.act_out_bytes) == 2 * 4096 * 2
    assert float(c.weight_bytes) == 4096 * 2
    assert c.unit == "vector"


def test_layernorm_has_bias_and_more_flops():
    c = norm(tokens=1, width=768, kind="layer", act_bytes=4.0)
    assert float(c.flops) == 7 * 768
    assert float(c.weight_bytes) == 2 * 768 * 4


def test_gated_activation_reads_gate_and_up():
    # SwiGLU over 14336 wide: reads 2 x 14336, writes 14336; 4 (silu) + 1 (gate multiply) FLOPs per element
    c = activation(tokens=1, width=14336, activation="silu", gated=True, act_bytes=2.0)
    assert float(c.act_in_bytes) == 2 * 14336 * 2
    assert float(c.act_out_bytes) == 14336 * 2
    assert float(c.flops) == 5 * 14336


def test_activation_consumes_what_up_proj_produces():
    # LLM-Viewer's bug: costing the MLP activation on hidden_size elements. Ours reads the intermediate width.
    from rooftop.analytic.ops.gemm import gemm

    up = gemm(tokens=8, k=4096, n=11008, weight_bytes_per_elt=2, act_bytes_per_elt=2)
    act = activation(tokens=8, width=11008, activation="silu", gated=True, act_bytes=2.0)
    assert float(act.act_in_bytes) == 2 * float(up.act_out_bytes)  # gate and up outputs


@pytest.mark.parametrize(
    ("name", "flops"),
    [("silu", 4.0), ("swish", 4.0), ("gelu_new", 8.0), ("gelu_pytorch_tanh", 8.0), ("relu2", 2.0), ("relu", 1.0)],
)
def test_activation_names(name, flops):
    assert activation_flops_per_elt(name) == flops


def test_embedding_gathers_rows():
    c = embedding(tokens=5, width=768, weight_bytes_per_elt=4.0, act_bytes=4.0, tables=2)  # GPT-2 wte + wpe
    assert float(c.weight_bytes) == 2 * 5 * 768 * 4
    assert float(c.flops) == 0
