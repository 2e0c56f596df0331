"""Operator-family formulas: FLOPs and output shape, with the arithmetic beside each number."""

from __future__ import annotations

import pytest

from rooftop.torchops.formulas import attention, bmm, linear, matmul, mm, numel


def test_mm_and_bmm() -> None:
    assert mm([4, 5], [5, 6]) == (2 * 4 * 5 * 6, [4, 6])  # 2*m*k*n = 2*4*5*6 = 240
    assert bmm([3, 4, 5], [3, 5, 6]) == (2 * 3 * 4 * 5 * 6, [3, 4, 6])  # 2*B*m*k*n = 720


def test_matmul_broadcasts_and_treats_1d_as_vectors() -> None:
    assert matmul([2, 1, 4, 5], [3, 5, 6]) == (2 * (2 * 3) * 4 * 5 * 6, [2, 3, 4, 6])  # batch [2,1]x[3] -> 6: 1,440
    assert matmul([5], [5]) == (2 * 5, [])  # dot product: 10
    assert matmul([7, 5], [5]) == (2 * 7 * 5, [7])  # matrix-vector: 70
    assert matmul([5], [2, 5, 6]) == (2 * 2 * 5 * 6, [2, 6])  # vector-matrix, batch 2: 120


def test_linear_uses_the_weight_transposed() -> None:
    assert linear([2, 3, 8], [16, 8]) == (2 * (2 * 3 * 8) * 16, [2, 3, 16])  # 2*numel(x)*n = 2*48*16 = 1,536


@pytest.mark.parametrize("fn, a, b", [(mm, [4, 5], [6, 7]), (bmm, [2, 4, 5], [2, 6, 7]), (linear, [], [3, 4])])
def test_mismatched_shapes_raise(fn, a, b) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        fn(a, b)


def test_attention_pairs_by_convention() -> None:
    q, kv = [2, 4, 6, 8], [2, 2, 6, 8]  # b=2, 4 query heads, 2 KV heads, s=6, d=8
    assert attention(q, kv, kv, 1, causal=False) == (2 * 2 * 4 * 36 * (8 + 8), q)  # 6*6 pairs: 18,432
    assert attention(q, kv, kv, 1, causal=True)[0] == 2 * 2 * 4 * 21 * (8 + 8)  # 6*7/2 = 21 pairs: 10,752
    past = [2, 2, 10, 8]  # s_q 6 != s_k 10: the full rectangle either way
    assert attention(q, past, past, 1, causal=True)[0] == 2 * 2 * 4 * 60 * (8 + 8)  # 6*10: 30,720
    bshd_q, bshd_kv = [2, 6, 4, 8], [2, 6, 2, 4]  # [b, s, h, d], v head dim 4
    assert attention(bshd_q, bshd_kv, bshd_kv, 2, causal=False) == (2 * 2 * 4 * 36 * (8 + 4), [2, 6, 4, 4])  # 13,824


def test_numel() -> None:
    assert numel([2, 3, 4]) == 24 and numel([]) == 1  # a scalar holds one element
