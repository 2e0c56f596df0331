"""Gated DeltaNet and Mamba shapes: parameters equal transformers' (hand sums from its shapes)."""

from rooftop.models.mixers import LinearAttention, StateSpace


def test_gated_deltanet_qwen3_next():
    la = LinearAttention(k_heads=16, v_heads=32, k_head_dim=128, v_head_dim=128, conv_kernel=4)
    # in_proj_qkvz 2048 x 12,288 + in_proj_ba 2048 x 64 + conv1d 8192 x 4 + dt_bias, A_log 2 x 32
    # + norm 128 + out_proj 4096 x 2048
    assert la.params(2048) == 25_165_824 + 131_072 + 32_768 + 64 + 128 + 8_388_608 == 33_718_464
    assert la.state_elements == 32 * 128 * 128 + 8192 * 3 == 548_864


def test_mamba2_nemotron_h():
    m = StateSpace(d_inner=16_384, d_state=256, conv_kernel=4, heads=256, groups=8)
    # in_proj 8192 x 37,120 + conv 20,480 x 4 + bias 20,480 + dt_bias/A_log/D 3 x 256 + norm 16,384
    # + out_proj 16,384 x 8192
    assert m.params(8192) == 304_087_040 + 81_920 + 20_480 + 768 + 16_384 + 134_217_728
    assert m.state_elements == 16_384 * 256 + 20_480 * 3


def test_mamba1_jamba():
    m = StateSpace(d_inner=4096, d_state=4, conv_kernel=1, version=1, dt_rank=256, inner_norms=True)
    # in_proj 2048 x 8192, conv 4096 + bias 4096, x_proj 4096 x 264, dt_proj 256 x 4096 + 4096,
    # A_log 4096 x 4, D 4096, out_proj 4096 x 2048, dt/B/C norms 256 + 4 + 4
    assert m.params(2048) == 16_777_216 + 8192 + 1_081_344 + 1_052_672 + 16_384 + 4096 + 8_388_608 + 264
    assert m.state_elements == 4096 * 4  # a 1-tap convolution keeps no window
