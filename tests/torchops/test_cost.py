"""FLOPs and bytes of one recorded aten op from its Kineto args, with the arithmetic beside each number."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rooftop.torchops.cost import (
    OpCost,
    carries_flops,
    causal_flag,
    cost,
    costable,
    covered_ops,
    memory_cost,
    op_bytes,
    tensors,
)
from rooftop.torchops.dtype_names import kineto_type


def rec(dims: Any, types: Any = None, concrete: Any = None) -> dict[str, Any]:
    """An args dict as Kineto writes it (keys absent when not recorded)."""
    out: dict[str, Any] = {"Input Dims": dims}
    if types is not None:
        out["Input type"] = types
    if concrete is not None:
        out["Concrete Inputs"] = concrete
    return out


def test_mm() -> None:
    c = cost("aten::mm", rec([[128, 5], [5, 128]], ["float", "float"]))
    assert c is not None
    assert c.flops == 2 * 128 * 5 * 128  # 163,840
    assert c.bytes == (128 * 5 + 5 * 128 + 128 * 128) * 4  # A + B + C in fp32 = 70,656
    assert c.dtype == "fp32" and not c.attention


def test_addmm_reads_the_bias() -> None:
    c = cost("aten::addmm", rec([[128], [5, 128], [128, 128], [], []], ["float"] * 3 + ["Scalar"] * 2))
    assert c is not None
    assert c.flops == 2 * 5 * 128 * 128  # 163,840
    assert c.bytes == (5 * 128 + 128 * 128 + 5 * 128 + 128) * 4  # A + B + C + bias = 71,168


def test_addmm_flops_skip_the_bias() -> None:
    c = cost("aten::addmm", rec([[32], [4, 16], [16, 32]], ["float", "float", "float"]))
    assert c is not None and c.flops == 2 * 4 * 16 * 32  # 4,096: [4,16] @ [16,32]


def test_bmm_baddbmm_bf16() -> None:
    c = cost("aten::bmm", rec([[8, 64, 32], [8, 32, 16]], ["c10::BFloat16"] * 2))
    assert c is not None and c.flops == 2 * 8 * 64 * 32 * 16  # 524,288
    assert c.bytes == (8 * 64 * 32 + 8 * 32 * 16 + 8 * 64 * 16) * 2  # A + B + C in bf16 = 57,344
    d = cost("aten::baddbmm", rec([[8, 64, 16], [8, 64, 32], [8, 32, 16], [], []], ["c10::BFloat16"] * 3))
    assert d is not None and d.flops == c.flops and d.bytes == c.bytes + 8 * 64 * 16 * 2  # + the accumulator read
    assert d.dtype == "bf16"


def test_linear_and_matmul_broadcast() -> None:
    c = cost("aten::linear", rec([[4, 10, 64], [32, 64], [32]], ["c10::Half"] * 3))
    assert c is not None and c.flops == 2 * 4 * 10 * 64 * 32  # 163,840
    assert c.bytes == (4 * 10 * 64 + 32 * 64 + 32 + 4 * 10 * 32) * 2  # x + W + bias + y in fp16 = 11,904
    m = cost("aten::matmul", rec([[2, 3, 4, 5], [5, 6]], ["float", "float"]))
    assert m is not None and m.flops == 2 * (2 * 3) * 4 * 5 * 6  # batch 6: 1,440
    v = cost("aten::matmul", rec([[7, 5], [5]], ["float", "float"]))
    assert v is not None and v.flops == 2 * 7 * 5  # matrix-vector: 70


QKV = [[2, 8, 128, 64], [2, 8, 256, 64], [2, 8, 256, 64]]  # q [b=2, h=8, s_q=128, d=64], k/v [2, 8, 256, 64]


def test_attention_full_rectangle() -> None:
    c = cost("aten::scaled_dot_product_attention", rec(QKV, ["c10::BFloat16"] * 3))
    # QK^T 2*2*8*128*256*64 + PV the same = 4*2*8*128*256*64 = 134,217,728
    assert c is not None and c.flops == 4 * 2 * 8 * 128 * 256 * 64 and c.attention and not c.causal
    # q + k + v + out [2, 8, 128, 64], bf16: (131,072 + 262,144 * 2 + 131,072) * 2 = 1,572,864
    assert c.bytes == (2 * 8 * 128 * 64 * 2 + 2 * 8 * 256 * 64 * 2) * 2
    f = cost(
        "aten::_flash_attention_forward", rec([[2, 128, 8, 64], [2, 256, 8, 64], [2, 256, 8, 64]], ["c10::Half"] * 3)
    )
    assert f is not None and f.flops == c.flops  # [b, s, h, d] layout, same work


def test_attention_causal_is_a_parameter() -> None:
    square = rec([[1, 4, 8, 16], [1, 2, 8, 16], [1, 2, 8, 16]], ["float"] * 3)  # GQA: 4 query heads, 2 KV heads
    full = cost("aten::_scaled_dot_product_flash_attention_for_cpu", square, causal=False)
    causal = cost("aten::_scaled_dot_product_flash_attention_for_cpu", square, causal=True)
    assert full is not None and full.flops == 2 * 1 * 4 * (8 * 8) * (16 + 16)  # 16,384
    assert causal is not None and causal.flops == 2 * 1 * 4 * (8 * 9 / 2) * (16 + 16)  # 36 pairs: 9,216
    assert causal.causal and causal.bytes == full.bytes  # bytes do not depend on the mask
    decode = rec([[1, 4, 1, 16], [1, 2, 9, 16], [1, 2, 9, 16]], ["float"] * 3)
    d = cost("aten::_scaled_dot_product_flash_attention_for_cpu", decode, causal=True)
    assert d is not None and d.flops == 2 * 1 * 4 * (1 * 9) * (16 + 16) and d.causal  # s_q != s_k: all 9, 2,304


@pytest.mark.parametrize(
    "op, concrete, expected",
    [
        ("aten::scaled_dot_product_attention", ["", "", "", "", "0.", "True", "0.25", "True"], True),
        ("aten::scaled_dot_product_attention", ["", "", "", "", "0.", "False", "0.25", "True"], False),  # enable_gqa
        ("aten::_scaled_dot_product_flash_attention_for_cpu", ["", "", "", "0.", "True", "", "0.25"], True),
        ("aten::_scaled_dot_product_efficient_attention", ["", "", "", "", "True", "0.", "False", ""], False),
        ("aten::_efficient_attention_forward", ["", "", "", "", "", "", "8", "8", "0.", "1"], True),
        ("aten::_efficient_attention_forward", ["", "", "", "", "", "", "8", "8", "0.", "0"], False),
        ("aten::scaled_dot_product_attention", None, None),  # Kineto before PyTorch 2.1
        ("aten::scaled_dot_product_attention", ["", ""], None),
        ("aten::mm", ["", ""], None),
    ],
)  # fmt: skip
def test_causal_flag_from_concrete_inputs(op: str, concrete: Any, expected: bool | None) -> None:
    assert causal_flag(op, rec([], concrete=concrete)) is expected


@pytest.mark.parametrize(
    "op, dims",
    [("aten::relu", [[4]]), ("aten::mm", [[4, 5]]), ("aten::mm", "junk"), ("aten::mm", [[4, 5], ["a", 2]]),
     ("aten::bmm", [[4, 5], [5, 6]]), ("aten::linear", [[], [3, 4]])],
)  # fmt: skip
def test_not_computable_is_none(op: str, dims: object) -> None:
    assert cost(op, rec(dims)) is None


def test_type_not_recorded_gives_flops_and_no_bytes() -> None:
    c = cost("aten::mm", rec([[4, 5], [5, 6]]))
    assert c is not None and c.flops == 2 * 4 * 5 * 6 and c.bytes == 0 and c.dtype == "unknown"  # 240


def test_composite_ops_leave_the_flops_to_the_op_under_them() -> None:
    assert not carries_flops("aten::linear") and not carries_flops("aten::matmul")
    assert not carries_flops("aten::scaled_dot_product_attention") and not carries_flops("aten::relu")
    assert carries_flops("aten::addmm") and carries_flops("aten::_scaled_dot_product_flash_attention_for_cpu")
    assert {"aten::mm", "aten::linear", "flash_attn::_flash_attn_forward"} <= covered_ops()


def test_bytes_of_ops_without_a_formula() -> None:
    assert op_bytes("aten::view", rec([[4, 8], [2]], ["float", ""])) == 0  # metadata only
    x = rec([[1, 8, 64], [1, 8, 64]], ["float", "float"])
    assert op_bytes("aten::mul", x) == (512 + 512 + 512) * 4  # two inputs + one output like the largest: 6,144
    emb = rec([[256, 64], [1, 8], [], [], []], ["float", "long int", "Scalar", "Scalar", "Scalar"])
    assert op_bytes("aten::embedding", emb) == 8 * 8 + 2 * 8 * 64 * 4  # 8 int64 ids + 8 rows read and written: 4,160
    cat = rec([[[1, 8, 8], [1, 8, 8]], []], ["TensorList", "Scalar"])
    assert op_bytes("aten::cat", cat) == 2 * (64 + 64) * 4  # reads 128 fp32 and writes them: 1,024
    assert op_bytes("aten::relu", rec([[4]], ["Scalar"])) == 0  # no tensor input
    assert op_bytes("aten::mm", rec([[4, 5], [5, 6]], ["float", "float"])) == (20 + 30 + 24) * 4  # the formula's: 296


def test_tensors_flatten_lists_and_skip_scalars() -> None:
    found = tensors(rec([[[2, 3], [4]], [], [5]], ["TensorList", "Scalar", "c10::Half"]))
    assert found == [([2, 3], 4.0), ([4], 4.0), ([5], 2.0)]  # TensorList elements at 4 bytes, fp16 at 2


@given(st.integers(1, 64), st.integers(1, 64), st.integers(1, 64), st.integers(1, 64))
def test_linear_equals_mm_on_2d(m: int, k: int, n: int, extra: int) -> None:
    lin = cost("aten::linear", rec([[m, k], [n, k]], ["float", "float"]))
    mm = cost("aten::mm", rec([[m, k], [k, n]], ["float", "float"]))
    assert lin is not None and mm is not None and lin.flops == mm.flops and lin.bytes == mm.bytes
    bigger = cost("aten::mm", rec([[m + extra, k], [k, n]], ["float", "float"]))
    assert bigger is not None and bigger.flops > mm.flops and bigger.bytes > mm.bytes


def test_bytes_of_copies_reductions_and_gathers() -> None:
    # Shapes as the real H200 trace (tests/data/gpu) records them; bf16 = 2 B, fp32 = 4 B, int64 = 8 B.
    bf16 = "c10::BFloat16"
    cast = rec([[16, 512, 2048], [16, 512, 2048], []], [bf16, "float", "Scalar"], ["", "", "False"])
    assert op_bytes("aten::copy_", cast) == 16_777_216 * (2 + 4)  # fp32 source read, bf16 destination written once
    mean = rec([[16, 512, 2048], [1], []], ["float", "", "Scalar"], ["", "[-1]", "True"])
    assert op_bytes("aten::mean", mean) == 16_777_216 * 4  # the input read; the output is 2,048x smaller
    select = rec([[128256, 2048], [], [8192]], [bf16, "Scalar", "long int"], ["", "0", ""])
    assert op_bytes("aten::index_select", select) == 8192 * 8 + 2 * 8192 * 2048 * 2  # ids + rows read and written
    gather = rec([[128256, 2048], [], [8192, 2048], [], [8192, 2048]], [bf16, "Scalar", "long int", "Scalar", bf16])
    assert op_bytes("aten::gather", gather) == 2 * 8192 * 2048 * 2  # one element read and written per index
    table = rec([[1 << 20, 128], [64]], [bf16, "long int"])
    assert op_bytes("fbgemm::split_embedding_lookup", table) == 0  # a custom op: what it reads is not its shapes
    assert op_bytes("aten::index", table) == 0  # partial indexing: likewise
    cat = rec([[[2, 4], [2, 4]], []], ["TensorList", "Scalar"])
    assert memory_cost("aten::cat", cat, kineto_type(bf16)) == OpCost(0.0, 2 * 16 * 2, "bf16")  # the run's dtype
    assert memory_cost("aten::view", rec([[4, 8]], ["float"])) is None
    assert costable("aten::mul") and costable("flash_attn::_flash_attn_forward")
    assert not costable("aten::view") and not costable("aten::index") and not costable("vllm::rms_norm")
