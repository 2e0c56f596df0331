"""Expert-parallel and other communication is communication, labelled by its collective; the class
map is user-extensible (tests/ingest/conftest.py deepep_trace, tests/data/hta-traces/README.md)."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from rooftop.api.ingest import import_path
from rooftop.hardware.catalog import get_roofs
from rooftop.ingest.join import join
from rooftop.ingest.kineto import read_trace
from rooftop.ingest.timeline import analyse
from rooftop.ingest.trace_points import points
from rooftop.torchops.kernel_classes import classify, collective_label, op_of, use_user_classes
from tests.conftest import run_cli
from tests.ingest.conftest import deepep_trace, hta

US = 1e-6


@pytest.fixture(scope="module")
def deepep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return deepep_trace(tmp_path_factory.mktemp("deepep") / "train.json.gz")


def timeline(path: Path) -> dict:
    trace = read_trace(path)
    return analyse(trace, join(trace))


def test_deepep_is_communication(deepep: Path) -> None:
    # DeepSeek's DualPipe trace: 32 dpsk::ep::internode kernels, 113,030 µs of 128 ms busy.
    # Before: "communication 0 kernels", 0 s.
    tl = timeline(deepep)
    assert tl["nccl_kernels"] == 32
    assert tl["nccl_s"] == pytest.approx(113_030 * US) and tl["nccl_sum_s"] == pytest.approx(113_030 * US)
    assert tl["comm_compute_overlap_s"] == pytest.approx(108_868 * US)
    assert [(c["collective"], c["kernels"]) for c in tl["collectives"]] == [("all_to_all", 32)]
    # the layout kernels compute a routing table locally: not communication
    assert classify("void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*)").name != "communication"
    assert classify("void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*)").name != "communication"


def test_deepep_finding_and_point_labels(deepep: Path) -> None:
    run = import_path(deepep, get_roofs("h100-sxm"))
    (result,) = run.results
    (f,) = [f for f in result.findings if f.code == "communication-heavy"]
    assert f.severity == "info" and "88% of the GPU's busy time, 96% of it under compute" in f.title
    ops = {p.op for p in result.points if p.provenance.get("class") == "communication"}
    assert ops == {"all_to_all"}  # before: every communication point was "all_reduce"


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*)", "all_to_all"),
        ("void deep_ep::internode_ll::combine<8>(void*)", "all_to_all"),
        ("void dpsk::ep::internode::cached_notify<false>(int)", "all_to_all"),
        ("pplx::a2a_dispatch_kernel(int)", "all_to_all"),
        ("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*)", "reduce_scatter"),
        ("ncclDevKernel_AllGather_RING_LL(ncclDevComm*)", "all_gather"),
        ("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", "send_recv"),
        ("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*)", "all_reduce"),
        ("void nvshmemi_transfer_rma_kernel<(nvshmemi_op_t)1>(void*)", ""),
    ],
)
def test_collective_labels(name: str, label: str) -> None:
    assert classify(name).name == "communication"
    assert op_of(name) == (label or "collective")


def test_nccl_points_carry_their_collective() -> None:
    # nccl_data: 15 AllReduce and 6 Broadcast kernels; a100x8: 42 SendRecv, 18 AllReduce.
    # Before: all of these points had op "all_reduce".
    for name, want in (("nccl_data.json.gz", {"all_reduce", "broadcast"}), ("a100x8_rank3_control.json.gz", {"send_recv", "all_reduce"})):  # fmt: skip
        pts = [p for p in points(*hta(name)) if p.provenance["class"] == "communication"]
        assert {p.op for p in pts} == want
    counts = collections.Counter(collective_label(x) for x in ("allreduce", "_allgather_base", "alltoall_base", "send"))
    assert counts == {"all_reduce": 1, "all_gather": 1, "all_to_all": 1, "send_recv": 1}


def test_user_class_file(tmp_path: Path, deepep: Path) -> None:
    # A user file's classes are tried before the shipped ones: here the DeepSeek FP8 cast kernels
    # become "quant" and a made-up collective word labels DeepEP's notify kernels "barrier".
    user = tmp_path / "classes.toml"
    user.write_text(
        '[[class]]\nname = "quant"\ngroup = "elementwise"\nop = "quant"\npatterns = ["per_token_cast_to_fp8"]\n\n'
        '[[collective]]\nname = "barrier"\nwords = ["cachednotify"]\n'
    )
    try:
        use_user_classes(str(user))
        tl = timeline(deepep)
        assert tl["classes"]["quant"] == pytest.approx(7_297 * US)  # every per_token_cast_to_fp8* kernel (recount)
        by = {c["collective"]: c["kernels"] for c in tl["collectives"]}
        assert by == {"all_to_all": 20, "barrier": 12}
    finally:
        use_user_classes(None)
    assert classify("void cuda::per_token_cast_to_fp8_with_channels<int>(int)").name != "quant"
    out = run_cli("import", str(deepep), "--json", "--kernel-classes", str(user))
    assert out.returncode == 0, out.stderr
    assert '"quant"' in out.stdout
    (tmp_path / "bad.toml").write_text("[[class]]\nname = 1\n")
    bad = run_cli("import", str(deepep), "--kernel-classes", str(tmp_path / "bad.toml"))
    assert bad.returncode == 2 and "not a kernel-class file" in bad.stderr and "Traceback" not in bad.stderr
