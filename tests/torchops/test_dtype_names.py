"""Kineto Input type names -> rooftop dtype and bytes; agrees with rooftop.dtypes where both name a dtype."""

from __future__ import annotations

import pytest

from rooftop.dtypes import DTYPES
from rooftop.torchops.dtype_names import _table, kineto_type, scalar_type, tensor_list_bytes


@pytest.mark.parametrize(
    "name, dtype, size",
    [("float", "fp32", 4), ("c10::BFloat16", "bf16", 2), ("c10::Half", "fp16", 2), ("double", "fp64", 8),
     ("c10::Float8_e4m3fn", "fp8_e4m3", 1), ("long int", "int64", 8), ("int", "int32", 4), ("bool", "bool", 1)],
)  # fmt: skip
def test_known_names(name: str, dtype: str, size: int) -> None:
    kt = kineto_type(name)
    assert kt is not None and kt.dtype == dtype and kt.bytes == size


@pytest.mark.parametrize("name", ["Scalar", "", "TensorList", "c10::complex<float>", None, 3])
def test_not_a_counted_tensor(name: object) -> None:
    assert kineto_type(name) is None


@pytest.mark.parametrize(
    "name, dtype, size",
    [("Float", "fp32", 4), ("BFloat16", "bf16", 2), ("half", "fp16", 2), ("Byte", "uint8", 1), ("Long", "int64", 8)],
)
def test_scalar_type_names_of_collectives(name: str, dtype: str, size: int) -> None:
    kt = scalar_type(name)  # c10::ScalarType names, as in a NCCL kernel's "dtype" arg; any case
    assert kt is not None and kt.dtype == dtype and kt.bytes == size
    assert scalar_type("ComplexFloat") is None and scalar_type(None) is None


def test_bytes_agree_with_the_dtype_table() -> None:
    for section in ("types", "scalar_types"):
        for name, kt in _table(section).items():
            if kt.dtype in DTYPES:
                assert kt.bytes == DTYPES[kt.dtype].bytes, name
    assert tensor_list_bytes() == 4.0  # Kineto records no element type for a TensorList
