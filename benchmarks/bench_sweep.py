"""Sweep speed: a 1000 × 1000 (batch × context) grid of llama-3.1-8b decode on h100-sxm.

Prints cells/s against the 1 M cells/s target, and peak memory (numpy allocations via
tracemalloc, and the process's max RSS). Run: `.venv/bin/python benchmarks/bench_sweep.py`.
"""

from __future__ import annotations

import resource
import time
import tracemalloc

import numpy as np

from rooftop.analytic.cost import Array
from rooftop.analytic.sweep import sweep_grid
from rooftop.api.sweep_whatif import transform_grid
from rooftop.api.techniques import Techniques
from rooftop.api.whatif import Options
from rooftop.core.roofs import Roofs
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.diagnose.sweep import goodput, sweep_findings
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset
from rooftop.models.spec import ModelSpec

TARGET_CELLS_PER_S = 1e6


def main(n_batch: int = 1000, n_context: int = 1000, repeats: int = 3) -> None:
    spec = load_preset("llama-3.1-8b")
    roofs = get_roofs("h100-sxm")
    batches = np.arange(1, n_batch + 1)
    contexts = np.arange(1, n_context + 1) * 32  # 32 .. 32,000 tokens
    slo = SLO(ttft_s=0.5, tpot_s=0.05)
    cells = n_batch * n_context
    sweep_grid(spec, roofs, Workload(), batches[:2], contexts[:2], 2048, 256)  # warm the formula registry
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        grid = sweep_grid(spec, roofs, Workload(), batches, contexts, 2048, 256)
        good = goodput(slo, grid)
        findings = sweep_findings(grid, slo)
        best = min(best, time.perf_counter() - start)
    del grid
    tracemalloc.start()  # one more run, traced (tracing slows it, so it is not timed)
    grid = sweep_grid(spec, roofs, Workload(), batches, contexts, 2048, 256)
    sweep_findings(grid, slo)
    _, peak_bytes = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rate = cells / best
    print(f"sweep: {cells:,} cells (batch {n_batch} × context {n_context}) in {best:.3f} s (best of {repeats})")
    print(f"  {rate:,.0f} cells/s = {rate / TARGET_CELLS_PER_S:.2f}× the {TARGET_CELLS_PER_S:,.0f} cells/s target")
    peak_mib = peak_bytes / 2**20
    print(
        f"  peak traced memory {peak_mib:,.0f} MiB ({peak_bytes / cells:.0f} B/cell); max RSS {rss_kib / 1024:,.0f} MiB"
    )
    print(f"  {int((good > 0).sum()):,} cells meet the SLOs; {len(findings)} findings")
    speculative(spec, roofs, batches, contexts, repeats)


def speculative(spec: ModelSpec, roofs: Roofs, batches: Array, contexts: Array, repeats: int) -> None:
    """The same grid with speculative decoding (k=4, α=0.8, n-gram) on every cell."""
    techniques = Techniques(Options(spec_k=4, spec_alpha=0.8), speculative=True)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        grid = sweep_grid(spec, roofs, Workload(), batches, contexts, 2048, 256)
        transform_grid(grid, spec, roofs, techniques)
        best = min(best, time.perf_counter() - start)
    rate = batches.size * contexts.size / best
    print(f"  with --spec-k 4: {rate:,.0f} cells/s = {rate / TARGET_CELLS_PER_S:.2f}× the target")


if __name__ == "__main__":
    main()
