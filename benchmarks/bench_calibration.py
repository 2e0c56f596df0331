"""Calibrated decode-step prediction vs measured, on a held-out grid (batch 1-32 × context 128-2048).

Needs a calibration: run `rooftop profile` first (same ROOFTOP_CACHE_DIR); its decode model is
fitted on the sweep shapes printed below, none of which is a cell of the grid. Prints every cell,
the median and p90 |error| (target: median ≤ 15 %), and the load average before and after (the
machine is shared: a busy neighbour moves the measured times, not the prediction).
Takes about a minute on a 2-core CPU.
Run: .venv/bin/python benchmarks/bench_calibration.py
"""

import os

from rooftop.api.calibrated import heldout_error, load_calibrated_roofs

GRID = [(b, c) for b in (1, 4, 16, 32) for c in (128, 512, 2048)]


def load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


if __name__ == "__main__":
    _, calibration = load_calibrated_roofs("cpu", 1)
    model = calibration.get("decode_model")
    if model:
        shapes = [(int(b), int(c)) for b, c in model["shapes"]]
        assert not {(b, c - 3) for b, c in shapes} & set(GRID), "a training shape is a held-out cell"
        train = sorted(model["train_abs_error"])
        print(f"decode model fitted on (batch, context) {shapes}; train median |error| {train[len(train) // 2]:.1%}")
    else:
        print("no decode model in the calibration (one-shape efficiencies only): re-run `rooftop profile`")
    print(f"load average before: {load()}")
    result = heldout_error("llama-cpu-small", GRID, reps=5)
    print(f"load average after:  {load()}")
    for row in result["rows"]:
        print(
            f"batch {row['batch']:>3} context {row['context']:>5}: measured {row['measured_s'] * 1e3:7.1f} ms, "
            f"calibrated {row['predicted_s'] * 1e3:7.1f} ms ({row['error']:+.0%}), "
            f"roofline {row['roofline_s'] * 1e3:7.1f} ms"
        )
    print(f"median |error| {result['median_abs_error']:.1%} (target 15 %), p90 |error| {result['p90_abs_error']:.1%}")
