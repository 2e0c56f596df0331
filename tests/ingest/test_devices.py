"""ingest/devices.py: a trace's GPU rows split per device, the host side shared, the NCCL args kept with their rows.

The two-GPU traces are a real one (HTA's nccl_data: 3,774 GPU rows on device 0, 21 of them NCCL
kernels with their arguments, 8 entries in deviceProperties) with its odd rows moved to device 1,
as a process driving two GPUs would record them.
"""

from __future__ import annotations

import numpy as np
from msgspec.structs import replace

from rooftop.ingest.devices import device_indices, per_device
from rooftop.ingest.kineto import read_trace
from rooftop.ingest.tables import GpuTable
from tests.conftest import data_path

TRACE = read_trace(data_path("hta-traces", "nccl_data.json.gz"))


def _two_gpus() -> tuple[object, np.ndarray]:
    device = TRACE.gpu.device.copy()
    device[1::2] = 1  # rows 1, 3, 5, … on device 1
    gpu = GpuTable(*(device if name == "device" else getattr(TRACE.gpu, name) for name in GpuTable.__struct_fields__))
    return replace(TRACE, gpu=gpu), device


def test_one_device_is_the_trace_itself() -> None:
    assert device_indices(TRACE) == [0]
    assert per_device(TRACE) == [(0, TRACE)]


def test_each_view_holds_its_rows_and_their_nccl_args() -> None:
    trace, device = _two_gpus()
    (i0, gpu0), (i1, gpu1) = per_device(trace)
    assert (i0, i1) == (0, 1)
    assert gpu0.gpu.ts_us.size == 1887 == gpu1.gpu.ts_us.size  # 3,774 rows, every other one moved
    for index, view in ((0, gpu0), (1, gpu1)):
        rows = np.flatnonzero(device == index)
        assert (view.gpu.ts_us == TRACE.gpu.ts_us[rows]).all() and (view.gpu.device == index).all()
        # row r of the view is row rows[r] of the file: its NCCL args moved with it
        assert view.comm_args == {
            r: TRACE.comm_args[int(old)] for r, old in enumerate(rows) if int(old) in TRACE.comm_args
        }
        # the host side is the process's: shared, not split
        assert view.launches is trace.launches and view.cpu is trace.cpu and view.steps is trace.steps
        assert view.events == 40573 - 1887  # the file's events less the other GPU's rows
        assert [p["id"] for p in view.metadata["deviceProperties"]] == [index]
        assert view.device_name == "NVIDIA A100-PG509-200" and view.rank == TRACE.rank
    assert len(gpu0.comm_args) + len(gpu1.comm_args) == len(TRACE.comm_args) == 21
