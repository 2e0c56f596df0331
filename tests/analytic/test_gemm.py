import numpy as np
import pytest

from rooftop.analytic.ops.gemm import expected_experts, gemm, grouped_gemm, weight_bytes


def test_gemm_small_hand_arithmetic():
    c = gemm(tokens=4, k=5, n=6, weight_bytes_per_elt=2, act_bytes_per_elt=2)
    assert float(c.flops) == 240  # 2 * m * n * k = 2*4*6*5
    assert float(c.model_flops) == 240
    assert float(c.weight_bytes) == 60  # 5*6 weights x 2 B
    assert float(c.act_in_bytes) == 40  # 4*5 x 2 B
    assert float(c.act_out_bytes) == 48  # 4*6 x 2 B
    assert float(c.bytes) == 148


def test_gemm_vectorised_over_tokens():
    c = gemm(tokens=np.array([1, 2, 4]), k=8, n=8, weight_bytes_per_elt=1, act_bytes_per_elt=2)
    np.testing.assert_array_equal(c.flops, [128, 256, 512])  # 2*T*8*8
    np.testing.assert_array_equal(c.weight_bytes, [64, 64, 64])  # read once, whatever T


def test_w4a16_group_scales():
    # 0.5 B per weight + one fp16 scale per 128 inputs: 4096*4096*(0.5 + 2/128) = 8,650,752 B
    assert weight_bytes(4096, 4096, 0.5, 128, scale_bytes=2.0) == 4096 * 4096 * 0.515625 == 8_650_752
    assert weight_bytes(4096, 4096, 0.5, 128, scale_bytes=0.0) == 8_388_608


def test_decode_gemv_intensity_tends_to_two_over_bytes_per_weight():
    # batch 1: 2kn / (kn*b + small) -> 2/b: bf16 -> 1, int8 -> 2, int4 -> 4
    for b, expected in ((2.0, 1.0), (1.0, 2.0), (0.5, 4.0)):
        c = gemm(tokens=1, k=8192, n=8192, weight_bytes_per_elt=b, act_bytes_per_elt=2)
        assert float(c.flops / c.bytes) == pytest.approx(expected, rel=0.01)


def test_expected_experts():
    # Mixtral E=8, k=2: T=1 -> 2 experts; T=8 -> 8*(1-0.75^8) = 7.1993
    assert float(expected_experts(1, 8, 2)) == pytest.approx(2.0)
    assert float(expected_experts(8, 8, 2)) == pytest.approx(8 * (1 - 0.75**8))
    assert float(expected_experts(10_000, 8, 2)) == pytest.approx(8.0)


def test_grouped_gemm_reads_only_touched_experts():
    # T=1, top-2 of 8 experts, k=4, n=3: flops 2*(1*2)*4*3 = 48; weights 2 experts * 12 * 2 B = 48
    c = grouped_gemm(tokens=1, k=4, n=3, experts=8, top_k=2, weight_bytes_per_elt=2, act_bytes_per_elt=2)
    assert float(c.flops) == 48
    assert float(c.weight_bytes) == pytest.approx(48)
    assert float(c.act_in_bytes) == 16  # 2 routed copies x 4 x 2 B
