"""`rooftop import` of what rooftop wrote on an H200 (tests/data/gpu/README.md has the arithmetic)."""

import pytest

from rooftop.api.ingest import import_path
from rooftop.hardware.catalog import get_roofs
from tests.conftest import data_path


@pytest.fixture(scope="module")
def trace_result():
    return import_path(data_path("gpu", "llama-3.2-1b-b16-h200.json.gz"), get_roofs("h200-sxm")).results[0]


def test_cudnn_attention_kernels_take_the_flops_of_the_op_around_them(trace_result):
    # aten::_cudnn_attention_forward (no formula) launches the cuDNN kernels inside
    # aten::_scaled_dot_product_cudnn_attention (a formula, causal recorded True). The window holds the
    # profiled prefill (512 tokens) and the cache fill (2,048 tokens) of 16 layers at batch 16, 32 heads,
    # d 64; causal pairs s(s+1)/2, 4·d FLOPs per pair per head (QK^T and PV):
    hand = 16 * 4 * 16 * 32 * 64 * (512 * 513 // 2 + 2048 * 2049 // 2)
    assert hand == 4_675_608_772_608
    sm90 = [p for p in trace_result.points if "native_sdpa_sm90" in p.label]
    assert sum(p.flops for p in sm90) == hand and {p.provenance["attention"] for p in sm90} == {"causal pairs"}
    assert all(p.dtype == "bf16" and p.label.startswith("aten::_cudnn_attention_forward") for p in sm90)


def test_driver_launched_gemms_join_their_ops(trace_result):
    tl = trace_result.extra["timeline"]
    assert tl["kernels"] == 2755 and tl["launch"]["joined"] == 2755 and tl["cuda_graph"]["graph_kernels"] == 0
    nvjet = [p for p in trace_result.points if "nvjet_sm90" in p.label]
    assert nvjet and all(p.label.startswith("aten::mm") and p.flops > 0 for p in nvjet)
    # the prefill GEMMs run at 766-793 TFLOP/s: under the 989 TFLOP/s bf16 datasheet roof
    assert max(p.flops / p.time_s for p in nvjet) < 989.4e12


def test_hopper_tensor_counters_count_the_padded_tile():
    # kernel #6 is a 1×2048 @ 2048×16384 GEMV: 67,108,864 model FLOPs; nvjet_sm90_tst_128x8 computes a
    # tile 8 tokens wide, so sm__ops_path_tensor_src_bf16_dst_fp32 counts 8× (HFU = 8 × MFU at batch 1)
    run = import_path(data_path("gpu", "ncu-stack-h200.csv"))
    (hbm,) = [p for p in run.results[0].points if p.label.startswith("#6 ") and p.level == "hbm"]
    assert hbm.flops == 536_870_912 == 8 * 2 * 2048 * 16384 and hbm.dtype == "bf16"
    assert hbm.bytes == 67_130_880 + 2_395_392  # dram read + write (MB = 10^6 B in ncu's CSV)
    assert hbm.time_s == pytest.approx(20.864e-6)
