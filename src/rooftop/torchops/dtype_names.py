"""Torch's dtype names in a trace -> rooftop dtype and bytes per element.

Two spellings, one data file (``mappings/dtypes_v1.toml``): an op's ``Input type`` entries
("float", "c10::BFloat16", "long int") and the c10 ScalarType names of a collective's ``dtype``
arg ("Float", "BFloat16", "Long"). Names the table lacks (``Scalar``, ``""`` for None, complex
types) are not tensors rooftop counts bytes for.
"""

from __future__ import annotations

from functools import cache

import msgspec

from rooftop.torchops.mapping import load

TENSOR_LIST = "TensorList"


class KinetoType(msgspec.Struct, frozen=True):
    """One recorded element type: the rooftop dtype name and bytes per element."""

    dtype: str
    bytes: float


@cache
def _table(section: str = "types") -> dict[str, KinetoType]:
    return {name: KinetoType(e["dtype"], float(e["bytes"])) for name, e in load("dtypes_v1")[section].items()}


@cache
def _scalar_types() -> dict[str, KinetoType]:
    return {name.lower(): kt for name, kt in _table("scalar_types").items()}


def kineto_type(type_name: object) -> KinetoType | None:
    """The dtype of a Kineto ``Input type`` entry; None when it is not a known tensor type."""
    return _table().get(type_name) if isinstance(type_name, str) else None


def scalar_type(name: object) -> KinetoType | None:
    """The dtype of a c10 ScalarType name ("Float", "BFloat16"; any case); None when unknown."""
    return _scalar_types().get(name.lower()) if isinstance(name, str) else None


def tensor_list_bytes() -> float:
    """Bytes per element assumed for the tensors of a ``TensorList`` (Kineto records no type for them)."""
    return float(load("dtypes_v1")["tensor_list_bytes"])
