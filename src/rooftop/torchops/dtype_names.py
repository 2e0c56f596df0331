"""Kineto ``Input type`` names ("float", "c10::BFloat16", "long int") -> rooftop dtype and bytes.

The table is data (``mappings/dtypes_v1.toml``); names it lacks (``Scalar``, ``""`` for None,
complex types) are not tensors rooftop counts bytes for.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from rooftop.torchops.mapping import load

TENSOR_LIST = "TensorList"


@dataclass(frozen=True)
class KinetoType:
    """One recorded element type: the rooftop dtype name and bytes per element."""

    dtype: str
    bytes: float


@cache
def _table() -> dict[str, KinetoType]:
    return {name: KinetoType(e["dtype"], float(e["bytes"])) for name, e in load("dtypes_v1")["types"].items()}


def kineto_type(type_name: object) -> KinetoType | None:
    """The dtype of a Kineto ``Input type`` entry; None when it is not a known tensor type."""
    return _table().get(type_name) if isinstance(type_name, str) else None


def tensor_list_bytes() -> float:
    """Bytes per element assumed for the tensors of a ``TensorList`` (Kineto records no type for them)."""
    return float(load("dtypes_v1")["tensor_list_bytes"])
