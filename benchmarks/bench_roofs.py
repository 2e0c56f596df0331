"""Measured roofs vs the best that torch.matmul and a triad loop reach in the same run (target: within 10 %).

Run: .venv/bin/python benchmarks/bench_roofs.py [--quick]
"""

import sys
import time

import torch

from rooftop.measure.roofs import measure_roofs


def best_matmul(seconds=3.0):
    best = 0.0
    for n in (256, 512, 768, 1024, 1536, 2048):
        a, b = torch.randn(n, n), torch.randn(n, n)
        end = time.perf_counter() + seconds / 6
        while time.perf_counter() < end:
            t = time.perf_counter()
            torch.mm(a, b)
            best = max(best, 2 * n**3 / (time.perf_counter() - t))
    return best


def best_triad(elements=48 * 2**20 // 4, seconds=3.0):
    a, b, c = torch.empty(elements), torch.rand(elements), torch.rand(elements)
    best = 0.0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        torch.add(b, c, alpha=3.0, out=a)
        best = max(best, 12 * elements / (time.perf_counter() - t))
    return best


if __name__ == "__main__":
    torch.set_num_threads(1)
    roofs = measure_roofs("cpu", 1, quick="--quick" in sys.argv)
    mm, triad = best_matmul(), best_triad()
    print(
        f"fp32 roof {roofs.peak('fp32') / 1e9:.1f} GFLOP/s vs best torch.matmul {mm / 1e9:.1f}: "
        f"ratio {roofs.peak('fp32') / mm:.3f}"
    )
    print(
        f"memory roof {roofs.bandwidth('hbm') / 1e9:.1f} GB/s ({roofs.memory_roof('hbm').source}) vs best triad "
        f"{triad / 1e9:.1f} GB/s: ratio {roofs.bandwidth('hbm') / triad:.3f}"
    )
    print(f"other processes' CPU share while measuring: {roofs.identity['other_processes_cpu_share']:.0%}")
