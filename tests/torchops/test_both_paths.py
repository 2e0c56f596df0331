"""The same recorded op through `rooftop profile`'s attribution and `rooftop import`'s points: equal FLOPs and bytes.

Each case is a list of Kineto events as the torch profiler writes them (an op, the op it dispatches
to, its launch and kernel) inside one ``rooftop::step::`` range. ``measure.attribution`` sums them
per top-level op; ``ingest.trace_points`` charges the kernel to the innermost op that launched it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rooftop.ingest.join import join
from rooftop.ingest.kineto import read_trace
from rooftop.ingest.trace_points import points
from rooftop.measure.attribution import attribute
from tests.ingest.conftest import cpu_op, kernel, launch, write_trace

F32, BF16 = "float", "c10::BFloat16"
SDPA_DIMS = [[1, 4, 8, 16], [1, 2, 8, 16], [1, 2, 8, 16]]  # q [b=1, h=4, s=8, d=16], k/v 2 KV heads (GQA)


def op(
    name: str, dims: list[Any], types: list[str], concrete: list[str] | None, ts: float, dur: float
) -> dict[str, Any]:
    args: dict[str, Any] = {"Input Dims": dims, "Input type": types}
    if concrete is not None:
        args["Concrete Inputs"] = concrete
    return cpu_op(ts, dur, name, **args)


def recorded(leaf: dict[str, Any], parent: dict[str, Any] | None, kernel_name: str) -> list[dict[str, Any]]:
    """A step holding ``parent`` (if any) around ``leaf``, which launches one kernel."""
    step = {"ph": "X", "cat": "user_annotation", "name": "rooftop::step::decode::0", "pid": 1, "tid": 1,
            "ts": 0, "dur": 1000, "args": {}}  # fmt: skip
    events = [step, *([parent] if parent else []), leaf, launch(leaf["ts"] + 1, 2, corr=7)]
    return [*events, kernel(leaf["ts"] + 20, 30, corr=7, name=kernel_name)]


def sdpa(causal: str | None) -> list[dict[str, Any]]:
    top = ["", "", "", "", "0.", causal, "0.25", "True"] if causal else None  # is_causal at 5
    leaf = ["", "", "", "0.", causal, "False", "0.25"] if causal else None  # is_causal at 4
    parent = op("aten::scaled_dot_product_attention", [*SDPA_DIMS, [], [], [], [], []],
                [BF16] * 3 + ["", "Scalar", "Scalar", "Scalar", "Scalar"], top, 10, 200)  # fmt: skip
    child = op("aten::_scaled_dot_product_flash_attention", [*SDPA_DIMS, [], [], [], []],
               [BF16] * 3 + ["Scalar"] * 4, leaf, 20, 150)  # fmt: skip
    return recorded(child, parent, "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<16>>(Params)")


GEMM = "ampere_sgemm_32x32_nn"
MM = op("aten::mm", [[4, 5], [5, 6]], [F32] * 2, ["", ""], 10, 100)
ADDMM = op("aten::addmm", [[6], [4, 5], [5, 6], [], []], [F32] * 3 + ["Scalar"] * 2, ["", "", "", "1", "1"], 10, 100)
LINEAR = op("aten::linear", [[2, 4, 5], [6, 5], [6]], [F32] * 3, ["", "", ""], 10, 100)
LINEAR_ADDMM = op("aten::addmm", [[6], [8, 5], [5, 6], [], []], [F32] * 3 + ["Scalar"] * 2, None, 20, 80)
BMM = op("aten::bmm", [[3, 4, 5], [3, 5, 6]], [BF16] * 2, ["", ""], 10, 100)
CASES = {
    # 2*m*k*n = 2*4*5*6 = 240; (A 20 + B 30 + C 24) * 4 bytes = 296
    "mm": (recorded(MM, None, GEMM), 240, 296),
    # 2*4*5*6 = 240; (bias 6 + A 20 + B 30 + C 24) * 4 = 320
    "addmm": (recorded(ADDMM, None, GEMM), 240, 320),
    # linear x [2,4,5] W [6,5] b [6] -> addmm on [8,5]: 2*8*5*6 = 480; (x 40 + W 30 + b 6 + y 48) * 4 = 496
    "linear": (recorded(LINEAR_ADDMM, LINEAR, GEMM), 480, 496),
    # 2*B*m*k*n = 2*3*4*5*6 = 720; (A 60 + B 90 + C 72) * 2 bytes (bf16) = 444
    "bmm": (recorded(BMM, None, GEMM), 720, 444),
    # causal, s_q = s_k = 8: 8*9/2 = 36 pairs; 2*b*h*pairs*(d+d_v) = 2*1*4*36*32 = 9,216
    # bytes: (q 512 + k 256 + v 256 + out 512) * 2 = 3,072
    "sdpa causal": (sdpa("True"), 9_216, 3_072),
    # not causal: 8*8 = 64 pairs: 2*1*4*64*32 = 16,384; same bytes
    "sdpa not causal": (sdpa("False"), 16_384, 3_072),
    # Kineto before PyTorch 2.1 records no Concrete Inputs: both paths count the full rectangle
    "sdpa unrecorded": (sdpa(None), 16_384, 3_072),
}


@pytest.mark.parametrize("case", list(CASES))
def test_profile_and_import_agree(case: str, tmp_path: Path) -> None:
    events, flops, moved = CASES[case]
    (step,) = attribute({"traceEvents": events})
    live = (sum(o.flops for o in step.ops), sum(o.bytes for o in step.ops))
    trace = read_trace(write_trace(tmp_path / "t.json", events))
    imported = [p for p in points(trace, join(trace)) if p.flops]
    assert live == (sum(p.flops for p in imported), sum(p.bytes for p in imported)) == (flops, moved)


@pytest.mark.parametrize(
    "case, label",
    [("sdpa causal", "causal pairs"), ("sdpa not causal", "full rectangle"),
     ("sdpa unrecorded", "full rectangle (is_causal not recorded)")],
)  # fmt: skip
def test_import_says_which_attention_convention_it_used(case: str, label: str, tmp_path: Path) -> None:
    trace = read_trace(write_trace(tmp_path / "t.json", CASES[case][0]))
    (point,) = [p for p in points(trace, join(trace)) if p.flops]
    assert point.provenance["attention"] == label and point.op == "attention"
