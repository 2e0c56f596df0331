"""Calibrated decode-step prediction vs measured, on a held-out grid (batch 1-32 × context 128-2048).

Needs a calibration: run `rooftop profile` first (same ROOFTOP_CACHE_DIR). Prints every cell and
the median |error| (target ≤ 15 %). Takes about a minute on a 2-core CPU.
Run: .venv/bin/python benchmarks/bench_calibration.py
"""

from rooftop.api.calibrated import heldout_error

GRID = [(b, c) for b in (1, 4, 16, 32) for c in (128, 512, 2048)]

if __name__ == "__main__":
    result = heldout_error("llama-cpu-small", GRID, progress=print)
    for row in result["rows"]:
        print(
            f"batch {row['batch']:>3} context {row['context']:>5}: measured {row['measured_s'] * 1e3:7.1f} ms, "
            f"calibrated {row['predicted_s'] * 1e3:7.1f} ms ({row['error']:+.0%}), "
            f"roofline {row['roofline_s'] * 1e3:7.1f} ms"
        )
    print(f"median |error| {result['median_abs_error']:.1%} (target 15 %)")
