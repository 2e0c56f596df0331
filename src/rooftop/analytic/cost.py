"""OpCost: what one occurrence of an operator costs, as arrays over the workload grid.

The formulas that produce it live in ``analytic/ops/``; the registry that finds them is
``analytic/registry.py``. This module imports neither.
"""

from __future__ import annotations

import msgspec
import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


def _zero() -> Array:
    return np.zeros(())


class OpCost(msgspec.Struct, frozen=True):
    """Cost of one occurrence of an operator (per GPU), as arrays over the workload grid.

    ``flops`` is what the kernel executes (hardware FLOPs, per the ``causal`` convention);
    ``model_flops`` is the part that counts toward MFU (matmuls, useful causal pairs only).
    Byte fields are HBM bytes; ``link_bytes`` cross the interconnect (per direction, per GPU).
    ``unit`` is 'tensor' (matrix units, the workload's compute dtype) or 'vector' (elementwise).
    """

    flops: Array = msgspec.field(default_factory=_zero)
    model_flops: Array = msgspec.field(default_factory=_zero)
    weight_bytes: Array = msgspec.field(default_factory=_zero)
    act_in_bytes: Array = msgspec.field(default_factory=_zero)
    act_out_bytes: Array = msgspec.field(default_factory=_zero)
    kv_read_bytes: Array = msgspec.field(default_factory=_zero)
    kv_write_bytes: Array = msgspec.field(default_factory=_zero)
    link_bytes: Array = msgspec.field(default_factory=_zero)
    unit: str = "tensor"

    @property
    def bytes(self) -> Array:
        """All HBM bytes."""
        return self.weight_bytes + self.act_in_bytes + self.act_out_bytes + self.kv_read_bytes + self.kv_write_bytes

    def __add__(self, other: OpCost) -> OpCost:
        if self.unit != other.unit:
            raise ValueError("cannot add costs on different units")
        values = {name: getattr(self, name) + getattr(other, name) for name in self.__struct_fields__ if name != "unit"}
        return OpCost(**values, unit=self.unit)
