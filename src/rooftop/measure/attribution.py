"""Attribute a torch.profiler Chrome trace to transformer operators, step by step.

The profiler run (profile.py) wraps every module's forward in a ``rooftop::mod::<path>`` range,
HF's ``Cache.update`` in ``rooftop::mod::kv_append``, and every step in
``rooftop::step::<phase>::<i>``. Here each top-level aten op of a step is charged to the
innermost module range around it, named through the versioned map ``data/attribution-1.toml``.
Time is the op's host duration on CPU, or the summed duration of the kernels it launched on
CUDA. FLOPs come from the shapes of the matmul-family leaves and the attention kernel under it;
bytes from the shapes of the op's inputs and (estimated) output. Whatever no op covers inside a
step is a gap (Python, dispatch, launch, idle device).
"""

from __future__ import annotations

import math
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from rooftop.errors import TraceFormatError

MOD = "rooftop::mod::"
STEP = "rooftop::step::"


@dataclass(frozen=True)
class OpSample:
    """One top-level aten op charged to an operator class."""

    cls: str
    aten: str
    time_s: float
    flops: float
    matmul_flops: float
    bytes: float


@dataclass(frozen=True)
class StepProfile:
    """One prefill or decode step: its duration, its ops, and the time no op covers."""

    phase: str
    index: int
    time_s: float
    gap_s: float
    ops: tuple[OpSample, ...] = field(default=())

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
    text = resources.files("rooftop.measure").joinpath("data/attribution-1.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _numel(dims: Any) -> float:
    return float(math.prod(dims)) if isinstance(dims, list) and all(isinstance(d, int) for d in dims) else 0.0


def _tensors(args: dict[str, Any]) -> list[tuple[list[int], float]]:
    """(dims, bytes per element) of each tensor input; tensor lists are flattened."""
    sizes = mapping()["dtype_bytes"]
    out = []
    for dims, typ in zip(args.get("Input Dims", []), args.get("Input type", [])):
        if typ == "TensorList" and isinstance(dims, list):
            out += [(d, 4.0) for d in dims if isinstance(d, list) and d]
        elif isinstance(dims, list) and dims and typ in sizes:
            out.append((dims, float(sizes[typ])))
    return out


def matmul_flops(name: str, args: dict[str, Any]) -> float:
    """2·M·N·K (× batch) of mm / addmm / bmm / baddbmm from their input shapes."""
    dims = [d for d, _ in _tensors(args)]
    if name in ("aten::addmm", "aten::baddbmm"):
        dims = dims[1:]
    if len(dims) < 2 or len(dims[0]) < 2:
        return 0.0
    a, b = dims[0], dims[1]
    return 2.0 * _numel(a) * b[-1]


def attention_flops(args: dict[str, Any]) -> float:
    """QKᵀ and PV: 2·b·h·s_q·s_k·(d + d_v); causal with s_q = s_k counts s(s+1)/2 pairs (what the kernel does)."""
    dims = [d for d, _ in _tensors(args)]
    if len(dims) < 3 or len(dims[0]) != 4:
        return 0.0
    (b, h, sq, d), k, v = dims[0], dims[1], dims[2]
    sk, dv = k[-2], v[-1]
    causal = "True" in args.get("Concrete Inputs", [])[3:6]
    pairs = sq * (sq + 1) / 2 if causal and sq == sk else sq * sk
    return 2.0 * b * h * pairs * (d + dv)


def op_bytes(name: str, args: dict[str, Any]) -> float:
    """Inputs read once plus the output written once, estimated from the shapes."""
    if name in mapping()["views"]["ops"]:
        return 0.0
    tensors = _tensors(args)
    if not tensors:
        return 0.0
    reads = sum(_numel(d) * s for d, s in tensors)
    dims0, size0 = tensors[0]
    if name == "aten::embedding":  # weight, indices: reads the gathered rows only
        rows = _numel(tensors[1][0]) if len(tensors) > 1 else 0.0
        return rows * tensors[1][1] + 2 * rows * dims0[-1] * size0
    if name in ("aten::linear", "aten::matmul", "aten::mm", "aten::addmm") and len(tensors) >= 2:
        n = tensors[1][0][0] if name == "aten::linear" else tensors[1][0][-1]
        return reads + _numel(dims0[:-1]) * n * size0
    if name == "aten::cat":
        return 2 * reads
    return reads + max(_numel(d) for d, _ in tensors) * size0


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


def attribute(trace: dict[str, Any]) -> list[StepProfile]:
    """Every ``rooftop::step::`` range of a Chrome trace, with its ops attributed."""
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        raise TraceFormatError("not a Chrome trace: no traceEvents list")
    complete = [e for e in events if isinstance(e, dict) and e.get("ph") == "X" and "ts" in e and "dur" in e]
    steps = sorted((e for e in complete if str(e.get("name", "")).startswith(STEP)), key=lambda e: e["ts"])
    if not steps:
        raise TraceFormatError("trace holds no rooftop::step:: ranges (was it recorded by `rooftop profile`?)")
    kernels = _kernel_time_by_correlation(complete)
    return [_step(s, complete, kernels) for s in steps]


def _kernel_time_by_correlation(events: list[dict[str, Any]]) -> dict[int, list[tuple[float, float]]]:
    out: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for e in events:
        if e.get("cat") == "kernel" or e.get("cat") == "gpu_memcpy":
            corr = e.get("args", {}).get("correlation")
            if corr is not None:
                out[int(corr)].append((float(e["ts"]), float(e["ts"]) + float(e["dur"])))
    return out


def _step(
    step: dict[str, Any], events: list[dict[str, Any]], kernels: dict[int, list[tuple[float, float]]]
) -> StepProfile:
    t0, t1, tid = float(step["ts"]), float(step["ts"]) + float(step["dur"]), step.get("tid")
    inside = sorted(
        (e for e in events if e.get("tid") == tid and t0 <= e["ts"] and e["ts"] + e["dur"] <= t1 and e is not step),
        key=lambda e: (e["ts"], -e["dur"]),
    )
    ranges = [e for e in inside if str(e.get("name", "")).startswith(MOD)]
    ops = [e for e in inside if e.get("cat") == "cpu_op"]
    runtime = [e for e in events if e.get("cat") == "cuda_runtime" and t0 <= e["ts"] <= t1]
    m = mapping()["aten"]
    samples: list[OpSample] = []
    busy: list[tuple[float, float]] = []
    top: dict[str, Any] | None = None
    acc: dict[str, float] = {}
    for e in ops:
        end = e["ts"] + e["dur"]
        if top is None or e["ts"] >= top["ts"] + top["dur"]:
            if top is not None:
                samples.append(_sample(top, acc, ranges, runtime, kernels, busy))
            top, acc = e, {"flops": 0.0, "matmul": 0.0}
        name, args = e["name"], e.get("args", {})
        if name in m["matmul"]:
            f = matmul_flops(name, args)
            acc["flops"] += f
            acc["matmul"] += f
        elif name in m["attention"]:
            acc["flops"] += attention_flops(args)
        del end
    if top is not None:
        samples.append(_sample(top, acc, ranges, runtime, kernels, busy))
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
        cls, top["name"], time_us / 1e6, acc["flops"], acc["matmul"], op_bytes(top["name"], top.get("args", {}))
    )
