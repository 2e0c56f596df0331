"""Attribute a torch.profiler Chrome trace to transformer operators, step by step.

The profiler run (profile.py) wraps every module's forward in a ``rooftop::mod::<path>`` range,
HF's ``Cache.update`` in ``rooftop::mod::kv_append``, and every step in
``rooftop::step::<phase>::<i>``. Here each top-level aten op of a step is charged to the
innermost module range around it, named through the versioned map ``data/attribution-2.toml``.
Time is the op's host duration on CPU, or the summed duration of the kernels it launched on
CUDA. FLOPs and bytes come from the torch profiler's vocabulary (``rooftop.torchops``, shared with
``rooftop import``): FLOPs of the matmul-family leaves and the attention kernel under the op, in
the causal convention each recorded (``Concrete Inputs``); bytes of the op's inputs and
(estimated) output. Whatever no op covers inside a step is a gap (Python, dispatch, launch, idle
device).
"""

from __future__ import annotations

import math
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from rooftop.core.packaged import load_toml
from rooftop.errors import TraceFormatError
from rooftop.torchops.cost import carries_flops, causal_flag, cost, op_bytes

MOD = "rooftop::mod::"
STEP = "rooftop::step::"
# Launch calls that carry a kernel's correlation id: the runtime API, and the driver API that cuBLASLt
# (Hopper's nvjet GEMMs) and cuDNN attention launch through (cuLaunchKernelEx, cat "cuda_driver").
LAUNCH_CATS = frozenset({"cuda_runtime", "cuda_driver"})


class OpSample(msgspec.Struct, frozen=True):
    """One top-level aten op charged to an operator class."""

    cls: str
    aten: str
    time_s: float
    flops: float
    matmul_flops: float
    bytes: float


class StepProfile(msgspec.Struct, frozen=True):
    """One prefill or decode step: its duration, its ops, and the time no op covers."""

    phase: str
    index: int
    time_s: float
    gap_s: float
    ops: tuple[OpSample, ...] = ()

    @property
    def op_time_s(self) -> float:
        """Time inside ops."""
        return sum(o.time_s for o in self.ops)

    @property
    def matmul_flops(self) -> float:
        """FLOPs of the matmul family (what FlopCounterMode counts) in this step."""
        return sum(o.matmul_flops for o in self.ops)


@cache
def mapping() -> dict[str, Any]:
    """The attribution map shipped with the package."""
    return load_toml(Path(__file__).with_name("data") / "attribution-2.toml")


def op_flops(name: str, args: dict[str, Any]) -> tuple[float, float]:
    """(FLOPs, matmul FLOPs) of one op that carries FLOPs, in the causal convention it recorded."""
    if not carries_flops(name):
        return 0.0, 0.0
    c = cost(name, args, causal=causal_flag(name, args) is True)
    if c is None:
        return 0.0, 0.0
    return c.flops, 0.0 if c.attention else c.flops


def _innermost(ranges: list[dict[str, Any]], ts: float, end: float) -> str:
    best: dict[str, Any] | None = None
    for r in ranges:
        if r["ts"] <= ts and end <= r["ts"] + r["dur"] and (best is None or r["ts"] >= best["ts"]):
            best = r
    return best["name"][len(MOD) :] if best else ""


def classify(module_path: str, aten: str) -> str:
    """Operator class of ``aten`` running directly inside module ``module_path`` ('' = the step)."""
    m = mapping()
    last = module_path.rsplit(".", 1)[-1] if module_path else ""
    if last in m["modules"]:
        return str(m["modules"][last])
    key = "step" if not module_path else ("layer" if last.isdigit() else last)
    if key not in m["inside"]:
        key = "model"
    table = m["inside"][key]
    return str(table.get(aten, table["*"]))


def _union_s(intervals: list[tuple[float, float]]) -> float:
    total, end = 0.0, -math.inf
    for a, b in sorted(intervals):
        if b > end:
            total += b - max(a, end)
            end = b
    return total / 1e6


def attribute(trace: dict[str, Any], list_bytes: float | None = None) -> list[StepProfile]:
    """Every ``rooftop::step::`` range of a Chrome trace, with its ops attributed.

    ``list_bytes``: bytes per element of TensorList inputs (the KV cache's torch.cat), which Kineto
    records without a type; the profiled model's dtype. Counted at 4 B, a bf16 cache moved 2x its bytes.
    """
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        raise TraceFormatError("not a Chrome trace: no traceEvents list")
    complete = [e for e in events if isinstance(e, dict) and e.get("ph") == "X" and "ts" in e and "dur" in e]
    # on CUDA Kineto mirrors each range onto the GPU timeline (cat "gpu_user_annotation", spanning only
    # its kernels): counted as a second step, it halved every H200 step time. The host range is the step.
    steps = sorted(
        (e for e in complete if str(e.get("name", "")).startswith(STEP) and e.get("cat") != "gpu_user_annotation"),
        key=lambda e: e["ts"],
    )
    if not steps:
        raise TraceFormatError("trace holds no rooftop::step:: ranges (was it recorded by `rooftop profile`?)")
    kernels = _kernel_time_by_correlation(complete)
    return [_step(s, complete, kernels, list_bytes) for s in steps]


def _kernel_time_by_correlation(events: list[dict[str, Any]]) -> dict[int, list[tuple[float, float]]]:
    out: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for e in events:
        if e.get("cat") == "kernel" or e.get("cat") == "gpu_memcpy":
            corr = e.get("args", {}).get("correlation")
            if corr is not None:
                out[int(corr)].append((float(e["ts"]), float(e["ts"]) + float(e["dur"])))
    return out


def _step(
    step: dict[str, Any],
    events: list[dict[str, Any]],
    kernels: dict[int, list[tuple[float, float]]],
    list_bytes: float | None,
) -> StepProfile:
    t0, t1, tid = float(step["ts"]), float(step["ts"]) + float(step["dur"]), step.get("tid")
    inside = sorted(
        (e for e in events if e.get("tid") == tid and t0 <= e["ts"] and e["ts"] + e["dur"] <= t1 and e is not step),
        key=lambda e: (e["ts"], -e["dur"]),
    )
    ranges = [e for e in inside if str(e.get("name", "")).startswith(MOD)]
    ops = [e for e in inside if e.get("cat") == "cpu_op"]
    runtime = [e for e in events if e.get("cat") in LAUNCH_CATS and t0 <= e["ts"] <= t1]
    samples: list[OpSample] = []
    busy: list[tuple[float, float]] = []
    top: dict[str, Any] | None = None
    acc: dict[str, float] = {}
    for e in ops:
        if top is None or e["ts"] >= top["ts"] + top["dur"]:
            if top is not None:
                samples.append(_sample(top, acc, ranges, runtime, kernels, busy, list_bytes))
            top, acc = e, {"flops": 0.0, "matmul": 0.0}
        flops, matmul = op_flops(e["name"], e.get("args", {}))
        acc["flops"] += flops
        acc["matmul"] += matmul
    if top is not None:
        samples.append(_sample(top, acc, ranges, runtime, kernels, busy, list_bytes))
    _, phase, index = [*str(step["name"]).split("::"), "0"][1:4]
    time_s = float(step["dur"]) / 1e6
    return StepProfile(phase, int(index), time_s, max(0.0, time_s - _union_s(busy)), tuple(samples))


def _sample(
    top: dict[str, Any],
    acc: dict[str, float],
    ranges: list[dict[str, Any]],
    runtime: list[dict[str, Any]],
    kernels: dict[int, list[tuple[float, float]]],
    busy: list[tuple[float, float]],
    list_bytes: float | None,
) -> OpSample:
    start, end = float(top["ts"]), float(top["ts"]) + float(top["dur"])
    cls = classify(_innermost(ranges, start, end), top["name"])
    if kernels:  # CUDA: the op's time is the device time of the kernels it launched
        spans = [
            span
            for r in runtime
            if start <= r["ts"] <= end
            for span in kernels.get(int(r.get("args", {}).get("correlation", -1)), [])
        ]
        busy.extend(spans)
        time_us = sum(b - a for a, b in spans)
    else:
        busy.append((start, end))
        time_us = end - start
    return OpSample(
        cls,
        top["name"],
        time_us / 1e6,
        acc["flops"],
        acc["matmul"],
        op_bytes(top["name"], top.get("args", {}), list_bytes),
    )
