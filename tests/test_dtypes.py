import pytest

from rooftop.dtypes import dtype
from rooftop.errors import WorkloadError


@pytest.mark.parametrize(
    ("name", "nbytes"),
    [
        ("fp32", 4),
        ("tf32", 4),
        ("bf16", 2),
        ("fp16", 2),
        ("fp8_e4m3", 1),
        ("fp8_e5m2", 1),
        ("int8", 1),
        ("int4", 0.5),
        ("fp4", 0.5),
    ],
)
def test_bytes_per_element(name, nbytes):
    assert dtype(name).bytes == nbytes  # int4 = 0.5 B, never bits // 8 = 0


def test_aliases_and_roofs():
    assert dtype("bfloat16").name == "bf16"
    assert dtype("e4m3").compute_roof == "fp8"
    assert dtype("int4").compute_roof == "int4"


def test_unknown_dtype_suggests():
    with pytest.raises(WorkloadError, match="did you mean: bf16"):
        dtype("bf61")
