"""The typed columns kept from one Kineto trace: GPU activities, launch calls, CPU ops, and the Trace.

Timestamps stay in the trace's own unit (µs, integers or floats with ns fractions) until the
analyses convert them. Names are interned: every ``name_id`` column indexes ``Trace.names``.
The tables compare by identity (``eq=False``): a field-wise ``==`` of numpy columns raises, and
not generating it saves a compile per class at start-up.
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np

from rooftop.ingest.mapping import load

F64 = np.ndarray[Any, np.dtype[np.float64]]
I64 = np.ndarray[Any, np.dtype[np.int64]]
BOOL = np.ndarray[Any, np.dtype[np.bool_]]

KERNEL, MEMCPY, MEMSET = 0, 1, 2
LAUNCH, CPU_OP = 3, 4  # host-side kinds (rows of LaunchTable / CpuTable)


class GpuTable(msgspec.Struct, frozen=True, eq=False):
    """GPU activities (kernels, memcpy, memset), one row each; ``kind`` is KERNEL/MEMCPY/MEMSET."""

    ts_us: F64
    dur_us: F64
    stream: I64
    device: I64
    correlation: I64  # -1 when absent
    name_id: I64
    kind: I64
    bytes: F64  # memcpy/memset payload; NaN for kernels


class LaunchTable(msgspec.Struct, frozen=True, eq=False):
    """Host runtime/driver calls (cuda_runtime, cuda_driver), one row each."""

    ts_us: F64
    dur_us: F64
    correlation: I64
    external_id: I64
    thread: I64
    name_id: I64


class CpuTable(msgspec.Struct, frozen=True, eq=False):
    """CPU operators and user annotations (ProfilerStep excluded), with their recorded shapes (views excepted)."""

    ts_us: F64
    dur_us: F64
    thread: I64
    external_id: I64
    name_id: I64
    shape_id: I64  # index into ``shapes`` (-1: none); views keep none
    shapes: list[tuple[Any, Any]]  # distinct (Input Dims, Input type): a model repeats a few shapes
    concrete: list[Any] = msgspec.field(default_factory=list)  # Concrete Inputs of each ``shapes`` entry (None: absent)


class Trace(msgspec.Struct, frozen=True, eq=False):
    """Everything kept from one trace file."""

    path: str
    names: list[str]
    gpu: GpuTable
    launches: LaunchTable
    cpu: CpuTable
    steps: list[tuple[str, float, float]]  # (name, ts_us, dur_us) of ProfilerStep#N annotations
    comm_args: dict[int, dict[str, Any]]  # gpu row -> NCCL args (collective, nelems, dtype, group size)
    metadata: dict[str, Any]
    events: int
    skipped: dict[str, int] = msgspec.field(default_factory=dict)

    @property
    def rank(self) -> int | None:
        """The distributed rank recorded in the trace, if any."""
        info = self.metadata.get(load("kineto_v1")["metadata"]["distributed"])
        rank = info.get("rank") if isinstance(info, dict) else None
        return rank if isinstance(rank, int) else None

    @property
    def device_name(self) -> str:
        """The first device's name in ``deviceProperties`` (``computeProperties`` in PyTorch 1.8), or ''.

        '' also when it is not a string (str() of a 5,000-deep list recursed out).
        """
        for key in load("kineto_v1")["metadata"]["device_properties"]:
            props = self.metadata.get(key)
            name = props[0].get("name") if isinstance(props, list) and props and isinstance(props[0], dict) else None
            if isinstance(name, str):
                return name
        return ""

    @property
    def vendor(self) -> str:
        """'AMD' or 'NVIDIA' from the launch calls (hip* vs cu*), else from the device name; '' when unknown."""
        vendors = load("kineto_v1")["vendors"]
        launched = {self.names[i] for i in set(self.launches.name_id.tolist())}
        for vendor, words in vendors.items():
            if any(name.startswith(tuple(words["launch_prefixes"])) for name in launched):
                return str(vendor)
        for vendor, words in vendors.items():
            if any(word in self.device_name for word in words["device_words"]):
                return str(vendor)
        return ""
