"""Measure the sustained roofs of this device: GEMM per dtype, DRAM/HBM and L2 bandwidth, GEMV.

Each benchmark runs under :func:`rooftop.measure.timing.do_bench`; the sustained figure is the
best repetition (least disturbed on a shared machine) and the relative spread (median vs best)
is kept beside it. The memory roof is the best of copy, triad, read and a decode-shaped GEMV on
arrays far larger than the last-level cache: it is the ceiling a real operator can reach, so a
measured operator never sits above it by more than the spread. Results are core ``Roofs`` of
kind MEASURED whose ``source`` names the benchmark that set each roof.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec

from rooftop.core.roofs import ComputeRoof, MemoryRoof, RoofKind, Roofs
from rooftop.errors import MeasurementError
from rooftop.measure import kernels
from rooftop.measure.identity import identity
from rooftop.measure.timing import Samples, do_bench

DEVICES = ("cpu", "cuda")
Progress = Callable[[str], None]
# CPU flags of the matmul instructions per dtype: without them PyTorch converts to fp32 in software
NATIVE_CPU_FLAGS = {"bf16": {"avx512_bf16", "amx_bf16"}, "fp16": {"avx512_fp16", "amx_fp16"}}


def converted_on_cpu(dtype: str, ident: dict[str, Any]) -> bool:
    """Whether this CPU has no matmul instructions for ``dtype`` (fp16 without AVX512-FP16/AMX-FP16...).

    Such a GEMM is converted in software and runs far below fp32 (one thread of an AMD EPYC with
    AVX512-BF16 and no AVX512-FP16: fp32 105 GFLOP/s, bf16 224, fp16 3.2): it is measured at one
    small size, and its roof says why it is low.
    """
    return dtype in NATIVE_CPU_FLAGS and not set(ident.get("cpu_flags", [])) & NATIVE_CPU_FLAGS[dtype]


class Plan(msgspec.Struct, frozen=True):
    """Sizes and time budgets of one measurement (quick or full, CPU or CUDA)."""

    gemm_sizes: tuple[int, ...]
    slow_gemm_size: int  # for dtypes this CPU converts in software (converted_on_cpu): small, it is flat anyway
    stream_bytes: int
    l2_bytes: int
    gemv_shape: tuple[int, int]
    budget_s: float


def plan_for(device: str, quick: bool, llc_bytes: int) -> Plan:
    """Sizes that reach the plateau: streams ≥ 8× the last-level cache, L2 arrays in half of L2.

    On CUDA ``llc_bytes`` is the GPU's L2: an H200 (60 MB) plateaued at 6.2 TB/s with 24 to 32 MiB of
    triad arrays and fell to 4.2 at 48 MiB (benchmarks/gpu_l2_probe.py), so half of L2 it is.
    """
    if device == "cuda":
        return Plan(
            (4096, 8192) if quick else (4096, 8192, 16384),
            4096,
            2**30,
            llc_bytes // 2,
            (16384, 8192),
            0.2 if quick else 0.6,
        )
    stream = max(8 * llc_bytes, 64 * 2**20 if quick else 256 * 2**20)
    return Plan(
        (512, 1024) if quick else (512, 1024, 2048), 256, stream, 256 * 1024, (8192, 4096), 0.4 if quick else 1.2
    )


def has_torch() -> bool:
    """Whether torch is importable (without importing it)."""
    return importlib.util.find_spec("torch") is not None


def resolve_device(device: str) -> str:
    """'auto' -> 'cuda' when torch sees a CUDA device, else 'cpu'; other names pass through unchanged."""
    if device != "auto":
        return device
    if has_torch():
        import torch

        if torch.cuda.is_available():
            return "cuda"
    return "cpu"


def check_device(device: str) -> None:
    """Refuse unknown devices and CUDA without a GPU, with one clear sentence."""
    if device not in DEVICES:
        raise MeasurementError(f"unknown device {device!r}; rooftop measures one of: {', '.join(DEVICES)}")
    if device == "cuda":
        if not has_torch():
            raise MeasurementError("device cuda needs torch (pip install 'rooftop[measure]')")
        import torch

        if not torch.cuda.is_available():
            raise MeasurementError("device cuda: torch sees no CUDA device here (the cpu device needs none)")


@contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """Set torch's intra-op threads for the block, then restore them."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def measure_roofs(
    device: str = "cpu", threads: int = 1, quick: bool = False, progress: Progress | None = None
) -> Roofs:
    """Measure this device's roofs (kind MEASURED), with identity, distributions and spreads."""
    check_device(device)
    say = progress or (lambda _msg: None)
    backend = "torch" if has_torch() else "numpy"
    ident = identity(device, threads, backend)
    llc = ident.get("gpu_l2_bytes") if device == "cuda" else ident.get("l3_bytes") or ident.get("l2_bytes")
    plan = plan_for(device, quick, int(llc or 32 * 2**20))
    if backend == "torch":
        with torch_threads(threads):
            results = _torch_suite(device, plan, ident, say)
    else:
        results = _numpy_suite(plan, say)
    return assemble(device, ident, results, quick, threads)


Result = tuple[kernels.Kernel, Samples]


def _torch_suite(device: str, plan: Plan, ident: dict[str, Any], say: Progress) -> list[Result]:
    import torch

    sync: Callable[[], Any] | None = None
    flush: Callable[[], Any] | None = None
    timer = None
    if device == "cuda":
        sync = torch.cuda.synchronize
        scratch = torch.empty(256 * 2**20, dtype=torch.int8, device="cuda")
        flush = scratch.zero_
        timer = _cuda_event_timer
    dtypes = ["fp32", "bf16", "fp16"]
    if device == "cuda" and torch.cuda.get_device_capability() >= (8, 9):
        dtypes.append("fp8")
    out: list[Result] = []

    def run(kernel: kernels.Kernel, use_flush: bool = True) -> None:
        say(f"{kernel.name} {kernel.shape}")
        samples = do_bench(
            kernel.fn, budget_s=plan.budget_s, sync=sync, flush=flush if use_flush else None, timer=timer
        )
        out.append((kernel, samples))

    for dtype in dtypes:
        slow = device == "cpu" and converted_on_cpu(dtype, ident)
        for n in (plan.slow_gemm_size,) if slow else plan.gemm_sizes:
            run(kernels.torch_gemm(n, dtype, device))
    elements = plan.stream_bytes // 4
    for kind in ("copy", "triad", "read"):
        run(kernels.torch_stream(kind, elements // (3 if kind == "triad" else 2), device), use_flush=False)
    run(kernels.torch_gemv(*plan.gemv_shape, device))
    l2_elements = plan.l2_bytes // 12
    run(kernels.torch_stream("triad", l2_elements, device, inner=50), use_flush=False)
    out[-1] = (kernels.Kernel("l2_triad", *(_fields(out[-1][0]))), out[-1][1])
    return out


def _fields(k: kernels.Kernel) -> tuple[Any, float, float, str]:
    return k.fn, k.flops, k.bytes, k.shape


def _cuda_event_timer(fn: Callable[[], Any]) -> float:
    import torch

    start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
    end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
    start.record()
    fn()
    end.record()
    end.synchronize()
    return float(start.elapsed_time(end)) / 1e3


def _numpy_suite(plan: Plan, say: Progress) -> list[Result]:
    out: list[Result] = []
    for kernel in [
        *(kernels.numpy_gemm(n) for n in plan.gemm_sizes),
        kernels.numpy_stream("copy", plan.stream_bytes // 8),
        kernels.numpy_stream("read", plan.stream_bytes // 4),
    ]:
        say(f"{kernel.name} {kernel.shape} (numpy)")
        out.append((kernel, do_bench(kernel.fn, budget_s=plan.budget_s)))
    l2 = kernels.numpy_stream("copy", plan.l2_bytes // 8, inner=50)
    out.append((kernels.Kernel("l2_copy", *_fields(l2)), do_bench(l2.fn, budget_s=plan.budget_s)))
    return out


def _record(kernel: kernels.Kernel, samples: Samples) -> dict[str, Any]:
    return {
        "name": kernel.name,
        "shape": kernel.shape,
        "flops": kernel.flops,
        "bytes": kernel.bytes,
        "flop_per_s": kernel.flops / samples.best_s,
        "bytes_per_s": kernel.bytes / samples.best_s,
        **samples.to_dict(),
    }


def _compute_roofs(
    records: list[dict[str, Any]], device: str, ident: dict[str, Any], measured: str, where: str
) -> tuple[list[ComputeRoof], dict[str, float]]:
    """The best GEMM per dtype as a roof, and its spread; a dtype the CPU converts says so."""
    compute: list[ComputeRoof] = []
    spread: dict[str, float] = {}
    for dtype in ("fp32", "bf16", "fp16", "fp8"):
        runs = [r for r in records if r["name"] == f"gemm_{dtype}"]
        if not runs:
            continue
        best = max(runs, key=lambda r: r["flop_per_s"])
        source = f"{measured}: {ident.get('backend')} mm {dtype} {best['shape']}, best of {best['reps']} ({where})"
        if device == "cpu" and converted_on_cpu(dtype, ident):
            source += f"; this CPU has no {dtype} matmul instructions: converted in software"
        compute.append(ComputeRoof(dtype, best["flop_per_s"], RoofKind.MEASURED, source))
        spread[f"compute.{dtype}"] = best["spread"]
    return compute, spread


def assemble(device: str, ident: dict[str, Any], results: list[Result], quick: bool, threads: int) -> Roofs:
    """Roofs from benchmark results: best GEMM per dtype, best stream for DRAM/HBM, L2 stream for L2."""
    records = [_record(k, s) for k, s in results]
    mode = "quick" if quick else "full"
    where = f"{threads} thread{'s' if threads != 1 else ''}" if device == "cpu" else ident.get("gpu", "cuda")
    compute, spread = _compute_roofs(records, device, ident, f"rooftop roofs measure ({mode})", where)
    memory: list[MemoryRoof] = []
    dram = [r for r in records if r["name"] in ("copy", "triad", "read", "gemv_fp32")]
    best = max(dram, key=lambda r: r["bytes_per_s"])
    memory.append(
        MemoryRoof(
            "hbm",
            best["bytes_per_s"],
            RoofKind.MEASURED,
            f"rooftop roofs measure ({mode}): best of copy/triad/read/GEMV on "
            f"{'HBM' if device == 'cuda' else 'DRAM'}, set by {best['name']} {best['shape']} ({where})",
        )
    )
    spread["memory.hbm"] = best["spread"]
    l2 = [r for r in records if r["name"].startswith("l2_")]
    if l2:
        memory.append(
            MemoryRoof(
                "l2",
                l2[0]["bytes_per_s"],
                RoofKind.MEASURED,
                f"rooftop roofs measure ({mode}): {l2[0]['name']} {l2[0]['shape']} ×50 ({where})",
            )
        )
        spread["memory.l2"] = l2[0]["spread"]
    if not compute:
        raise MeasurementError("no GEMM could be measured")
    name = f"{device}:{ident.get('gpu') or ident.get('cpu_model')}"
    return Roofs(
        name=name,
        compute=tuple(compute),
        memory=tuple(memory),
        capacity_bytes=float(ident.get("gpu_memory_bytes") or _host_memory_bytes()),
        vendor=str(ident.get("gpu") or ident.get("cpu_model") or ""),
        identity={**ident, "mode": mode, "threads": threads, "spread": spread, "benchmarks": records},
    )


def _host_memory_bytes() -> float:
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    return float("nan")
