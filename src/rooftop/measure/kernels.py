"""Micro-benchmark kernels: each returns (callable, FLOPs, bytes) for one repetition.

torch kernels serve CPU and CUDA; numpy kernels serve CPU when torch is absent. Byte counts are
the STREAM convention: every array element read or written once (copy = 2N, triad = 3N elements).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec


class Kernel(msgspec.Struct, frozen=True):
    """One benchmark body and the work one call does."""

    name: str
    fn: Callable[[], Any]
    flops: float
    bytes: float
    shape: str


def torch_gemm(n: int, dtype: str, device: str) -> Kernel:
    """C = A @ B, square n × n × n: 2n³ FLOPs; bytes = 3n² elements (A, B read, C written)."""
    import torch

    if dtype == "fp8":
        return _torch_fp8_gemm(n, device)
    tdtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[dtype]
    a = torch.randn(n, n, device=device).to(tdtype)
    b = torch.randn(n, n, device=device).to(tdtype)
    c = torch.empty(n, n, device=device, dtype=tdtype)
    size = a.element_size()
    return Kernel(f"gemm_{dtype}", lambda: torch.mm(a, b, out=c), 2.0 * n**3, 3.0 * n * n * size, f"{n}x{n}x{n}")


def _torch_fp8_gemm(n: int, device: str) -> Kernel:
    import torch

    a = torch.randn(n, n, device=device).to(torch.float8_e4m3fn)
    b = torch.randn(n, n, device=device).to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
    one = torch.ones((), device=device)

    def run() -> Any:
        return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)

    return Kernel("gemm_fp8", run, 2.0 * n**3, n * n * 2 + n * n * 2.0, f"{n}x{n}x{n}")


def torch_stream(kind: str, elements: int, device: str, inner: int = 1) -> Kernel:
    """Copy (a = b), triad (a = b + s·c), read (sum a): fp32 arrays, ``inner`` passes per call."""
    import torch

    a = torch.empty(elements, device=device)
    b = torch.rand(elements, device=device)
    c = torch.rand(elements, device=device)
    a.copy_(b)  # page the output in
    per_pass = {"copy": 2, "triad": 3, "read": 1}[kind] * 4.0 * elements
    if kind == "copy":

        def body() -> Any:
            return a.copy_(b)
    elif kind == "triad":

        def body() -> Any:
            return torch.add(b, c, alpha=3.0, out=a)
    else:

        def body() -> Any:
            return b.sum()

    def run() -> None:
        for _ in range(inner):
            body()

    if device == "cuda" and inner > 1:
        run = _graphed(run)
    return Kernel(kind, run, 0.0 if kind == "copy" else 2.0 * elements * inner, per_pass * inner, f"{elements:,} fp32")


def _graphed(run: Callable[[], Any]) -> Callable[[], Any]:
    """``run`` captured once in a CUDA graph, so its ``inner`` short kernels replay without launch gaps.

    An L2-resident pass of 16 MiB takes about 2 µs, less than one eager launch: measured eagerly on
    an H200, the L2 roof came out at 2.7 TB/s, below HBM's 4.2. Falls back to ``run`` when capture fails.
    """
    import torch

    try:
        side = torch.cuda.Stream()  # type: ignore[no-untyped-call]
        side.wait_stream(torch.cuda.current_stream())  # type: ignore[no-untyped-call]
        with torch.cuda.stream(side):
            run()  # warm-up outside the capture, as torch.cuda.graph asks
        torch.cuda.current_stream().wait_stream(side)  # type: ignore[no-untyped-call]
        graph = torch.cuda.CUDAGraph()  # type: ignore[no-untyped-call]
        with torch.cuda.graph(graph):
            run()
    except RuntimeError:
        return run
    return graph.replay  # type: ignore[no-any-return]


def torch_gemv(n: int, k: int, device: str) -> Kernel:
    """Decode-shaped y = x Wᵀ with one token: 2nk FLOPs, bytes ≈ the weight (n·k fp32)."""
    import torch

    w = torch.randn(n, k, device=device)
    x = torch.randn(1, k, device=device)
    y = torch.empty(1, n, device=device)
    return Kernel(
        "gemv_fp32", lambda: torch.mm(x, w.t(), out=y), 2.0 * n * k, 4.0 * (n * k + k + n), f"1x{k} @ {k}x{n}"
    )


def numpy_gemm(n: int) -> Kernel:
    """Numpy fp32 C = A @ B (when torch is absent)."""
    import numpy as np

    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    c = np.empty((n, n), dtype=np.float32)
    return Kernel("gemm_fp32", lambda: np.matmul(a, b, out=c), 2.0 * n**3, 12.0 * n * n, f"{n}x{n}x{n}")


def numpy_stream(kind: str, elements: int, inner: int = 1) -> Kernel:
    """Numpy copy or read (sum) on fp32 arrays (triad needs a temporary in numpy, so it is left out)."""
    import numpy as np

    a = np.empty(elements, dtype=np.float32)
    b = np.random.default_rng(0).random(elements, dtype=np.float32)
    a[:] = b
    if kind == "copy":

        def body() -> Any:
            return np.copyto(a, b)
    else:

        def body() -> Any:
            return b.sum()

    def run() -> None:
        for _ in range(inner):
            body()

    per_pass = (2 if kind == "copy" else 1) * 4.0 * elements
    return Kernel(kind, run, 0.0, per_pass * inner, f"{elements:,} fp32")
