"""Where the L2 roof plateaus on a GPU: triad over 3 arrays of a given total size, 50 passes per
timed call, eager launches vs one CUDA graph (what `rooftop roofs measure` now does).

    python benchmarks/gpu_l2_probe.py            # needs a CUDA device
"""

from __future__ import annotations

import torch

from rooftop.measure import kernels


def best_s(fn, reps: int = 20) -> float:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return min(times)


def main() -> None:
    print(f"{'MiB':>5} {'eager TB/s':>11} {'graph TB/s':>11}")
    for mib in (4, 8, 16, 24, 32, 48, 96, 1024):
        elements = mib * 2**20 // 12
        graphed = kernels.torch_stream("triad", elements, "cuda", inner=50)
        eager = kernels.torch_stream("triad", elements, "cuda", inner=1)
        eager_s = best_s(lambda e=eager: [e.fn() for _ in range(50)])
        graph_s = best_s(graphed.fn)
        print(f"{mib:5} {graphed.bytes / eager_s / 1e12:11.2f} {graphed.bytes / graph_s / 1e12:11.2f}")


if __name__ == "__main__":
    main()
