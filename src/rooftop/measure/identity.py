"""The identity of a measurement: CPU, BLAS, threads, GPU, driver, clocks, library versions.

Also a contention indicator: the share of the machine's CPU time that *other* processes used
while we sampled it. A shared machine turns a roof into a lottery; the figure travels with the
roofs so a reader can judge them.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from rooftop.core.artifact import host_platform

INTERESTING_FLAGS = ("avx", "avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_tile")


def cpu_identity() -> dict[str, Any]:
    """CPU model name, logical cores, the vector flags that matter for GEMM, and caches."""
    model = platform.processor() or platform.machine()
    flags: list[str] = []
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    if match:
        model = match.group(1).strip()
    match = re.search(r"^flags\s*:\s*(.+)$", text, re.MULTILINE)
    if match:
        present = set(match.group(1).split())
        flags = [f for f in INTERESTING_FLAGS if f in present]
    return {"cpu_model": model, "cpu_count": os.cpu_count() or 1, "cpu_flags": flags, **_caches()}


def _caches() -> dict[str, Any]:
    """Cache sizes in bytes from sysfs (L1d, L2, L3), where the kernel exposes them."""
    out: dict[str, Any] = {}
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    if not base.exists():
        return out
    for index in sorted(base.glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except OSError:
            continue
        if kind == "Instruction":
            continue
        units = {"K": 1024, "M": 1024**2, "G": 1024**3}
        value = int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)
        out[f"l{level}_bytes"] = value
    return out


def contention(sample_s: float = 0.2) -> float:
    """Share of all CPUs' time used by *other* processes over ``sample_s`` seconds (0..1, NaN if unknown)."""
    try:
        busy0, total0 = _proc_stat()
        self0 = time.process_time()
        time.sleep(sample_s)
        busy1, total1 = _proc_stat()
        self1 = time.process_time()
    except (OSError, ValueError, IndexError):
        return float("nan")
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    others = (busy1 - busy0) - (self1 - self0) * ticks
    total = total1 - total0
    return max(0.0, min(1.0, others / total)) if total > 0 else float("nan")


def _proc_stat() -> tuple[float, float]:
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    values = [float(v) for v in fields]
    idle = values[3] + (values[4] if len(values) > 4 else 0.0)
    return sum(values) - idle, sum(values)


def torch_identity(device: str) -> dict[str, Any]:
    """Torch / CUDA versions, threads, BLAS and (on CUDA) GPU name, memory, driver and clocks."""
    import torch

    out: dict[str, Any] = {
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "blas": _blas(torch.__config__.show()),
    }
    if device == "cuda":
        props = torch.cuda.get_device_properties(0)
        out.update(
            cuda=torch.version.cuda,
            gpu=props.name,
            gpu_memory_bytes=props.total_memory,
            gpu_l2_bytes=getattr(props, "L2_cache_size", None),
            sm_count=props.multi_processor_count,
            compute_capability=f"{props.major}.{props.minor}",
            **nvidia_smi(),
        )
    return out


def _blas(config: str) -> str:
    for pattern in (r"BLAS_INFO=(\w+)", r"(MKL|OpenBLAS|BLIS|Accelerate)[^,\n]*"):
        match = re.search(pattern, config, re.IGNORECASE)
        if match:
            return match.group(1) if match.groups() else match.group(0)
    return "unknown"


def nvidia_smi() -> dict[str, Any]:
    """Driver version and clocks from nvidia-smi, when it is on PATH (empty otherwise)."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        return {}
    query = "driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit"
    try:
        line = subprocess.run(
            [exe, f"--query-gpu={query}", "--format=csv,noheader,nounits", "--id=0"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {}
    keys = ("driver", "sm_clock_mhz", "sm_clock_max_mhz", "mem_clock_mhz", "power_limit_w")
    return dict(zip(keys, (v.strip() for v in line.split(",")), strict=False))


def numpy_identity() -> dict[str, Any]:
    """Numpy version and its BLAS (the path used when torch is absent)."""
    import numpy as np

    blas = "unknown"
    try:
        config = np.show_config(mode="dicts")
        blas = str(config.get("Build Dependencies", {}).get("blas", {}).get("name", "unknown"))
    except (TypeError, AttributeError):
        pass
    return {"numpy": np.__version__, "blas": blas}


def identity(device: str, threads: int, backend: str) -> dict[str, Any]:
    """Everything above in one record, plus the contention sampled now."""
    out: dict[str, Any] = {
        "device": device,
        "backend": backend,
        "host": platform.node(),
        "platform": host_platform(),
        "requested_threads": threads,
        **cpu_identity(),
        "other_processes_cpu_share": contention(),
    }
    out.update(torch_identity(device) if backend == "torch" else numpy_identity())
    return out
