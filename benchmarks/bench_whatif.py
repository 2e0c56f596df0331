"""What-if speed: every remedy of one workload re-evaluated, against the 50 ms limit.

Llama-3.1-8B decode at batch 1 on h100-sxm (the acceptance workload) and DeepSeek-V3 decode at
batch 32 with fp8 weights on h200-sxm (MoE: the EP and TP-that-fits variants too). Prints the
median CPU time of ``repeats`` runs of :func:`rooftop.api.whatif.what_if` (the code's own cost:
on a shared machine the wall clock also counts the time other processes hold the cores), and the
wall-clock median and best beside it.
Run: `.venv/bin/python benchmarks/bench_whatif.py`.
"""

from __future__ import annotations

import statistics
import time

from rooftop.api.whatif import what_if
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset

LIMIT_S = 0.050

CASES = (
    ("llama-3.1-8b", "h100-sxm", Workload(phase=Phase.DECODE, batch=1, context=2048)),
    ("deepseek-v3", "h200-sxm", Workload(phase=Phase.DECODE, batch=32, context=4096, weight_dtype="fp8")),
)


def main(repeats: int = 20) -> None:
    for model, hardware, workload in CASES:
        spec, roofs = load_preset(model), get_roofs(hardware)
        result = what_if(spec, roofs, workload)  # warm the formula registry
        wall, cpu = [], []
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            what_if(spec, roofs, workload)
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        median = statistics.median(cpu)
        verdict = "within" if median <= LIMIT_S else "OVER"
        print(
            f"what-if {model} on {hardware}: {len(result.ranked)} remedies, CPU median {median * 1e3:.1f} ms"
            f" ({verdict} the {LIMIT_S * 1e3:.0f} ms limit); wall median {statistics.median(wall) * 1e3:.1f} ms,"
            f" best {min(wall) * 1e3:.1f} ms"
        )


if __name__ == "__main__":
    main()
