"""FLOPs and bytes from Kineto Input Dims, with the arithmetic beside each number."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rooftop.ingest.shapes import cost


def test_mm() -> None:
    c = cost("aten::mm", [[128, 5], [5, 128]], ["float", "float"])
    assert c is not None
    assert c.flops == 2 * 128 * 5 * 128  # 163,840
    assert c.bytes == (128 * 5 + 5 * 128 + 128 * 128) * 4  # A + B + C in fp32 = 70,656
    assert c.dtype == "fp32"


def test_addmm_reads_the_bias() -> None:
    c = cost("aten::addmm", [[128], [5, 128], [128, 128], [], []], ["float"] * 3 + ["Scalar"] * 2)
    assert c is not None
    assert c.flops == 2 * 5 * 128 * 128  # 163,840
    assert c.bytes == (5 * 128 + 128 * 128 + 5 * 128 + 128) * 4  # A + B + C + bias = 71,168


def test_bmm_baddbmm_bf16() -> None:
    c = cost("aten::bmm", [[8, 64, 32], [8, 32, 16]], ["c10::BFloat16"] * 2)
    assert c is not None and c.flops == 2 * 8 * 64 * 32 * 16  # 524,288
    assert c.bytes == (8 * 64 * 32 + 8 * 32 * 16 + 8 * 64 * 16) * 2
    d = cost("aten::baddbmm", [[8, 64, 16], [8, 64, 32], [8, 32, 16], [], []], ["c10::BFloat16"] * 3)
    assert d is not None and d.flops == c.flops and d.bytes == c.bytes + 8 * 64 * 16 * 2


def test_linear_and_matmul_broadcast() -> None:
    c = cost("aten::linear", [[4, 10, 64], [32, 64], [32]], ["c10::Half"] * 3)
    assert c is not None and c.flops == 2 * 4 * 10 * 64 * 32  # 163,840
    m = cost("aten::matmul", [[2, 3, 4, 5], [5, 6]], ["float", "float"])
    assert m is not None and m.flops == 2 * (2 * 3) * 4 * 5 * 6  # batch 6: 1,440
    v = cost("aten::matmul", [[7, 5], [5]], ["float", "float"])
    assert v is not None and v.flops == 2 * 7 * 5  # matrix-vector: 70


def test_attention_full_rectangle() -> None:
    # q [b=2, h=8, s_q=128, d=64], k/v [2, 8, 256, 64]: QK^T 2*2*8*128*256*64 + PV the same
    c = cost("aten::scaled_dot_product_attention", [[2, 8, 128, 64], [2, 8, 256, 64], [2, 8, 256, 64]],
             ["c10::BFloat16"] * 3)  # fmt: skip
    assert c is not None and c.flops == 4 * 2 * 8 * 128 * 256 * 64
    f = cost("aten::_flash_attention_forward", [[2, 128, 8, 64], [2, 256, 8, 64], [2, 256, 8, 64]], ["c10::Half"] * 3)
    assert f is not None and f.flops == c.flops  # [b, s, h, d] layout, same work


@pytest.mark.parametrize(
    "op, dims",
    [("aten::relu", [[4]]), ("aten::mm", [[4, 5]]), ("aten::mm", "junk"), ("aten::mm", [[4, 5], ["a", 2]]),
     ("aten::bmm", [[4, 5], [5, 6]]), ("aten::linear", [[], [3, 4]])],
)  # fmt: skip
def test_not_computable_is_none(op: str, dims: object) -> None:
    assert cost(op, dims, None) is None


@given(st.integers(1, 64), st.integers(1, 64), st.integers(1, 64), st.integers(1, 64))
def test_linear_equals_mm_on_2d(m: int, k: int, n: int, extra: int) -> None:
    lin = cost("aten::linear", [[m, k], [n, k]], ["float", "float"])
    mm = cost("aten::mm", [[m, k], [k, n]], ["float", "float"])
    assert lin is not None and mm is not None and lin.flops == mm.flops
    bigger = cost("aten::mm", [[m + extra, k], [k, n]], ["float", "float"])
    assert bigger is not None and bigger.flops > mm.flops and bigger.bytes > mm.bytes
