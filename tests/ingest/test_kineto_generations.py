"""Every Kineto generation since PyTorch 1.8 is read (tests/data/kineto-generations/README.md).

The two real traces spell the categories "Kernel", "Runtime", "Memcpy", "Memset", "Operator", the
launch/GPU args "external id" and (1.8) the operator shapes "Input dims". Before kineto_v1.toml
listed these spellings the reader refused both: "no GPU kernel events (cat=kernel) among 18620
events; record with ProfilerActivity.CUDA".
"""

from __future__ import annotations

import numpy as np
import pytest

from rooftop.ingest.kineto import KERNEL, MEMCPY, MEMSET, read_trace
from rooftop.ingest.steps import breakdown
from rooftop.ingest.timeline import analyse
from rooftop.torchops.cost import costable
from tests.conftest import data_path
from tests.ingest.conftest import assert_same_trace, real

US = 1e-6
FOLDER = "kineto-generations"
# file -> (events, kernels, memcpy, memset, runtime calls, kernel union µs, kernel span µs): an
# independent recount with json + a plain interval merge (README).
COUNTS = {
    "torch18_resnet50_2steps.json.gz": (18620, 3660, 4, 163, 3640, 236_584, 324_702),
    "torch19_resnet50_2steps.json.gz": (19192, 2924, 4, 104, 3974, 197_168, 291_648),
}
# HolisticTraceAnalysis 0.5.0 get_temporal_breakdown on the same files (µs): kernel_time, idle, compute, non_compute
HTA = {
    "torch18_resnet50_2steps.json.gz": (120_244, 17_364, 100_863, 2_017),
    "torch19_resnet50_2steps.json.gz": (118_872, 18_243, 98_598, 2_031),
}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_old_spellings_are_read(name: str) -> None:
    events, kernels, memcpy, memset, launches, busy, span = COUNTS[name]
    trace, _ = real(FOLDER, name)
    assert trace.events == events
    assert [int((trace.gpu.kind == k).sum()) for k in (KERNEL, MEMCPY, MEMSET)] == [kernels, memcpy, memset]
    assert trace.launches.ts_us.size == launches
    tl = analyse(*real(FOLDER, name))
    assert tl["busy_s"] == pytest.approx(busy * US) and tl["span_s"] == pytest.approx(span * US)


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_both_readers_agree(name: str) -> None:
    path = data_path(FOLDER, name)
    assert_same_trace(read_trace(path), read_trace(path, fast=False))


def test_lowercase_external_id_and_input_dims() -> None:
    # 1.8: 3,606 of 3,640 "Runtime" calls carry "external id" (lower case), and the operators keep
    # their "Input dims" (lower-case d): the 12 aten::addmm / aten::mm for FLOPs, 3 distinct shapes;
    # 7,284 costable ops in all (elementwise, batch norm...: 334 distinct shapes), none of the views
    # or autograd nodes.
    trace, _ = real(FOLDER, "torch18_resnet50_2steps.json.gz")
    assert int((trace.launches.external_id > 0).sum()) == 3606
    names = np.array(trace.names)[trace.cpu.name_id]
    matmul = trace.cpu.shape_id[np.isin(names, ["aten::mm", "aten::addmm"])]
    assert int((matmul >= 0).sum()) == 12 and len(set(matmul.tolist())) == 3
    kept = trace.cpu.shape_id >= 0
    assert int(kept.sum()) == 7284 and len(trace.cpu.shapes) == 334
    assert all(map(costable, set(names[kept]))) and not any(map(costable, set(names[~kept])))
    trace, _ = real(FOLDER, "torch19_resnet50_2steps.json.gz")
    assert int((trace.launches.external_id > 0).sum()) == 3974


@pytest.mark.parametrize("name", sorted(HTA))
def test_steps_equal_hta(name: str) -> None:
    span, idle, compute, non_compute = HTA[name]
    b = breakdown(*real(FOLDER, name))
    assert [s["step"] for s in b["steps"]] == ["ProfilerStep#5", "ProfilerStep#6"]
    t = b["totals_without_last"]
    assert t["span_s"] == pytest.approx(span * US)
    assert t["idle_s"] == pytest.approx(idle * US)
    assert t["compute_s"] == pytest.approx(compute * US)
    assert t["non_compute_s"] == pytest.approx(non_compute * US)


def test_pytorch18_compute_properties_name_the_gpu() -> None:
    # kineto's tb_plugin test input (PyTorch 1.8 era) names its devices under "computeProperties",
    # not "deviceProperties": 30 "Kernel" events of 48 µs in all, 225,275 -> 236,502 µs.
    trace, joined = real(FOLDER, "torch18_tbplugin_gpu_metrics_v100.json.gz")
    assert trace.device_name == "Tesla V100-DGXS-32GB" and trace.vendor == "NVIDIA"
    tl = analyse(trace, joined)
    assert tl["kernels"] == 30 and tl["busy_s"] == pytest.approx(48 * US) and tl["span_s"] == pytest.approx(11_227 * US)
