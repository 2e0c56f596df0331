"""OpCost and the operator registry: one formula per operator family, registered once.

A formula takes shapes (numpy arrays broadcast over a workload grid) and dtypes and returns an
OpCost. Registering two formulas under one kind is an error; asking for an unregistered kind is
an explicit ``UnmodelledOp`` error, never a silent zero.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rooftop.errors import RooftopError

Array = NDArray[np.float64]


def _zero() -> Array:
    return np.zeros(())


class UnmodelledOp(RooftopError):
    """An operator kind that has no registered formula."""


@dataclass(frozen=True)
class OpCost:
    """Cost of one occurrence of an operator (per GPU), as arrays over the workload grid.

    ``flops`` is what the kernel executes (hardware FLOPs, per the ``causal`` convention);
    ``model_flops`` is the part that counts toward MFU (matmuls, useful causal pairs only).
    Byte fields are HBM bytes; ``link_bytes`` cross the interconnect (per direction, per GPU).
    ``unit`` is 'tensor' (matrix units, the workload's compute dtype) or 'vector' (elementwise).
    """

    flops: Array = field(default_factory=_zero)
    model_flops: Array = field(default_factory=_zero)
    weight_bytes: Array = field(default_factory=_zero)
    act_in_bytes: Array = field(default_factory=_zero)
    act_out_bytes: Array = field(default_factory=_zero)
    kv_read_bytes: Array = field(default_factory=_zero)
    kv_write_bytes: Array = field(default_factory=_zero)
    link_bytes: Array = field(default_factory=_zero)
    unit: str = "tensor"

    @property
    def bytes(self) -> Array:
        """All HBM bytes."""
        return self.weight_bytes + self.act_in_bytes + self.act_out_bytes + self.kv_read_bytes + self.kv_write_bytes

    def __add__(self, other: OpCost) -> OpCost:
        if self.unit != other.unit:
            raise ValueError("cannot add costs on different units")
        values = {f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self) if f.name != "unit"}
        return OpCost(**values, unit=self.unit)


Formula = Callable[..., OpCost]
_REGISTRY: dict[str, Formula] = {}


def register(kind: str) -> Callable[[Formula], Formula]:
    """Decorator: register ``fn`` as the formula of operator ``kind`` (once)."""

    def wrap(fn: Formula) -> Formula:
        if kind in _REGISTRY:
            raise ValueError(f"duplicate formula registration for operator kind {kind!r}")
        _REGISTRY[kind] = fn
        return fn

    return wrap


def formula(kind: str) -> Formula:
    """The formula for ``kind``; unregistered kinds raise UnmodelledOp."""
    _load_formulas()
    if kind not in _REGISTRY:
        raise UnmodelledOp(f"operator kind {kind!r} has no formula (unmodelled)")
    return _REGISTRY[kind]


def kinds() -> list[str]:
    """Every registered operator kind."""
    _load_formulas()
    return sorted(_REGISTRY)


def cost(kind: str, /, **shapes: Any) -> OpCost:
    """Evaluate the formula of ``kind`` on ``shapes``."""
    return formula(kind)(**shapes)


def _load_formulas() -> None:
    # Importing the formula modules registers them; imported here to keep `import rooftop` light.
    if "p2p_send" in _REGISTRY:  # loaded already: the import machinery costs ~20 µs per call
        return
    from rooftop.analytic import all_to_all, attention, collectives, elementwise, gemm, p2p  # noqa: F401
