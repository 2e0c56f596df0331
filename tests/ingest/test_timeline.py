"""Every number the hta-traces README lists, reproduced (µs in the README, seconds here)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rooftop.ingest.join import join
from rooftop.ingest.kineto import read_trace
from rooftop.ingest.timeline import analyse
from tests.ingest.conftest import cpu_op, hta, kernel, launch, write_trace

US = 1e-6

# file -> README values (µs). Tolerance: 0.01 µs absolute on sums of integer-µs traces, 1e-6 relative
# on float-ns traces (float64 rounding of 4e12-µs clocks).
EXPECTED = {
    "sampled_rank-0.json.gz": dict(kernels=1154, kernel_sum=606_519, busy=547_303, span=1_222_818, idle=675_515,
                                   largest_gap=58_862, gap_start=1682725899072204, gaps_over_10us=705,
                                   nccl_kernels=10, nccl=396_199, overlap=59_216, unjoined=0),
    "nccl_data.json.gz": dict(kernels=2700, kernel_sum=162_532.34, busy=155_215.31, span=660_551.01,
                              idle=505_335.70, largest_gap=31_157.02, gap_start=4458676425946.604,
                              nccl_kernels=21, nccl=46_876.49, overlap=7_317.03, unjoined=0),
    "a100x16_rank0.json.gz": dict(kernels=6080, busy=396_315, span=1_227_177, idle=830_862, largest_gap=70_859,
                                  gap_start=1683564902658025, nccl_kernels=80, nccl=187_870, nccl_sum=190_345,
                                  overlap=2_553, unjoined=6080 - 5375),
    "a100x8_rank3_control.json.gz": dict(kernels=8568, kernel_sum=446_813, busy=369_257, span=463_441, idle=94_184,
                                         largest_gap=2_443, gap_start=1661203462630947, nccl_kernels=60,
                                         nccl=163_535, overlap=75_614, unjoined=0),
    "alexnet_a100.json.gz": dict(kernels=79, kernel_sum=10_692, busy=10_630, span=12_840_244,
                                 largest_gap=10_857_887, nccl_kernels=0, nccl=0, overlap=0, unjoined=0),
    "mi250_minitoy_rocm.json.gz": dict(kernels=14, busy=110.881, span=8_594.445, unjoined=0),
    "triton_example.json.gz": dict(kernels=1, kernel_sum=1.76, busy=1.76, span=1.76, unjoined=0),
}  # fmt: skip
KEYS = {"kernel_sum": "kernel_sum_s", "busy": "busy_s", "span": "span_s", "idle": "idle_s",
        "largest_gap": "largest_gap_s", "nccl": "nccl_s", "nccl_sum": "nccl_sum_s",
        "overlap": "comm_compute_overlap_s"}  # fmt: skip


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_readme_numbers(name: str) -> None:
    tl = analyse(*hta(name))
    for key, want in EXPECTED[name].items():
        if key in KEYS:
            assert tl[KEYS[key]] == pytest.approx(want * US, rel=1e-6, abs=0.01 * US), key
        elif key == "gap_start":
            assert tl["largest_gap_start_us"] == pytest.approx(want, abs=1e-3), key
        elif key == "unjoined":
            assert tl["unjoined_kernels"] == want
        else:
            assert tl[key] == want, key


def test_idle_percentages() -> None:
    # README: 55.24 %, 76.50 %, 67.71 %, 20.32 %, 99.9 %
    for name, share in [("sampled_rank-0.json.gz", 0.5524), ("nccl_data.json.gz", 0.7650),
                        ("a100x16_rank0.json.gz", 0.6771), ("a100x8_rank3_control.json.gz", 0.2032),
                        ("alexnet_a100.json.gz", 0.999)]:  # fmt: skip
        assert analyse(*hta(name))["idle_share"] == pytest.approx(share, abs=6e-5 if share != 0.999 else 1e-3)


def test_streams_and_copies() -> None:
    tl = analyse(*hta("a100x16_rank0.json.gz"))
    assert tl["streams"] == {"7": 5705, "27": 295, "84": 36, "285": 22, "363": 22}
    assert (tl["memcpy"], tl["memset"]) == (1390, 277)
    tl = analyse(*hta("sampled_rank-0.json.gz"))
    assert tl["streams"] == {"7": 1036, "23": 108, "84": 8, "203": 2}
    assert (tl["memcpy"], tl["memset"]) == (40, 10)


def test_unjoined_share_reported() -> None:
    tl = analyse(*hta("a100x16_rank0.json.gz"))
    # 705 of 6,080 kernels have no cuda_runtime/driver call with their correlation: 11.6 %
    assert tl["unjoined_share"] == pytest.approx(705 / 6080)
    assert tl["launch"]["joined"] == 5375


def test_collectives_from_nccl_args() -> None:
    tl = analyse(*hta("nccl_data.json.gz"))
    by = {c["collective"]: c for c in tl["collectives"]}
    assert by["all_reduce"]["kernels"] == 15 and by["broadcast"]["kernels"] == 6
    assert by["all_reduce"]["message_bytes"] > 0  # In msg nelems × dtype size
    tl = analyse(*hta("a100x8_rank3_control.json.gz"))
    by = {c["collective"]: c["kernels"] for c in tl["collectives"]}
    assert by == {"send_recv": 42, "all_reduce": 18}  # parsed from the kernel names (no NCCL args)


def test_cuda_graph_replays_detected() -> None:
    # a100x16 has 70 cudaGraphLaunch calls; the kernels they correlate with are replays
    graphs = analyse(*hta("a100x16_rank0.json.gz"))["cuda_graph"]
    assert graphs["graph_launches"] == 70
    assert graphs["graph_kernels"] > 0
    assert analyse(*hta("sampled_rank-0.json.gz"))["cuda_graph"]["graph_launches"] == 0


def test_gap_causes_add_up_to_idle_between_kernels() -> None:
    for name in ("sampled_rank-0.json.gz", "alexnet_a100.json.gz", "nccl_data.json.gz"):
        tl = analyse(*hta(name))
        total = tl["gap_host_s"] + tl["gap_sync_s"] + tl["gap_copy_s"] + tl["gap_other_s"]
        assert total == pytest.approx(tl["idle_s"], rel=1e-9, abs=1e-9)
    # alexnet waits on the host between iterations: almost all of the 12.8 s idle is host time
    tl = analyse(*hta("alexnet_a100.json.gz"))
    assert tl["gap_host_s"] / tl["idle_s"] > 0.99


def test_a_gap_filled_by_a_copy_is_a_copy_gap(tmp_path: Path) -> None:
    # kernels [0,10) and [100,110) µs: a 90 µs gap. A HtoD copy runs 20-60 (40 µs, "copy") while a
    # CPU op runs 10-90 (the rest of its 80 µs, 40, is "host"); a cudaStreamSynchronize 90-95 is
    # "sync" (5 µs); 95-100 is "other".
    events = [
        kernel(0, 10, 1), kernel(100, 10, 2), {**kernel(20, 40, 3, name="Memcpy HtoD (Pinned -> Device)"), "cat": "gpu_memcpy"},
        cpu_op(10, 80, "aten::to"), launch(90, 5, 4, name="cudaStreamSynchronize"),
    ]  # fmt: skip
    trace = read_trace(write_trace(tmp_path / "t.json", events))
    tl = analyse(trace, join(trace))
    got = {k: round(tl[k] / US, 6) for k in ("gap_copy_s", "gap_host_s", "gap_sync_s", "gap_other_s")}
    assert got == {"gap_copy_s": 40, "gap_host_s": 40, "gap_sync_s": 5, "gap_other_s": 5}


def test_triton_kernel_has_its_driver_launch() -> None:
    tl = analyse(*hta("triton_example.json.gz"))
    assert tl["unjoined_kernels"] == 0
    assert math.isnan(tl["largest_gap_start_us"])  # one kernel: no gap


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e15, 1e15, allow_nan=False), min_size=1, max_size=60), st.sampled_from([0.5, 0.9]))
def test_quantile_is_numpys_bit_for_bit(values: list[float], q: float) -> None:
    import numpy as np

    from rooftop.ingest.timeline import quantile

    x = np.array(values)
    assert quantile(x, q) == float(np.median(x) if q == 0.5 else np.percentile(x, q * 100))


def test_a_gap_under_a_blocking_rocm_copy_is_a_sync_gap(tmp_path: Path) -> None:
    # TraceLens' SGLang decode trace on an MI300X: kernels stop for 463 ms while hipMemcpyWithStream
    # (PyTorch's ROCm build copies to the host with it, blocking) runs on the host; the gap read as
    # host work. Kernels [0,10) and [110,120) µs, the copy call 10-100 (90 µs "sync") under a CPU op
    # 5-105; 100-105 is still "host" (5 µs), 105-110 "other" (5 µs).
    events = [
        kernel(0, 10, 1), kernel(110, 10, 2), cpu_op(5, 100, "aten::_local_scalar_dense"),
        launch(10, 90, 3, name="hipMemcpyWithStream"),
    ]  # fmt: skip
    trace = read_trace(write_trace(tmp_path / "t.json", events))
    tl = analyse(trace, join(trace))
    got = {k: round(tl[k] / US, 6) for k in ("gap_copy_s", "gap_host_s", "gap_sync_s", "gap_other_s")}
    assert got == {"gap_copy_s": 0, "gap_host_s": 5, "gap_sync_s": 90, "gap_other_s": 5}
