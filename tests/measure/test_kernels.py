"""Each kernel's FLOPs and bytes by the STREAM / GEMM conventions, and that one call runs."""

import pytest

from rooftop.measure import kernels


def test_numpy_gemm_counts_2n3_flops_and_3n2_elements():
    k = kernels.numpy_gemm(64)
    assert k.flops == 2 * 64**3 and k.bytes == 12 * 64 * 64  # 3 fp32 matrices of 64×64
    k.fn()


@pytest.mark.parametrize(("kind", "elements_moved"), [("copy", 2), ("read", 1)])
def test_numpy_stream_bytes(kind, elements_moved):
    k = kernels.numpy_stream(kind, 1000, inner=3)
    assert k.bytes == elements_moved * 4 * 1000 * 3 and k.flops == 0.0
    k.fn()


def test_torch_kernels_follow_the_same_conventions():
    torch = pytest.importorskip("torch")
    gemm = kernels.torch_gemm(32, "bf16", "cpu")
    assert gemm.flops == 2 * 32**3 and gemm.bytes == 3 * 32 * 32 * 2  # bf16: 2 bytes per element
    gemm.fn()
    triad = kernels.torch_stream("triad", 1000, "cpu", inner=2)
    assert triad.bytes == 3 * 4 * 1000 * 2 and triad.flops == 2 * 1000 * 2  # a = b + s·c: 2 FLOPs per element
    triad.fn()
    copy = kernels.torch_stream("copy", 1000, "cpu")
    assert copy.flops == 0 and copy.bytes == 2 * 4 * 1000
    gemv = kernels.torch_gemv(256, 128, "cpu")
    assert gemv.flops == 2 * 256 * 128 and gemv.bytes == 4 * (256 * 128 + 128 + 256)
    out = gemv.fn()
    assert isinstance(out, torch.Tensor) and out.shape == (1, 256)
