"""cli/roofs.py: the one-line summary of a cached decode model, read through the typed DecodeModel."""

from __future__ import annotations

from rooftop.cli.roofs import _decode_model_line

CACHED = {  # a calibration cache's decode model (schema rooftop.decode-model/1), no compute coefficient fitted
    "schema": "rooftop.decode-model/1",
    "classes": {"lm_head": {"kind": "gemm", "v": 1.5, "p": 3.0, "k": None}},
    "residual": {"const_s": 1e-3, "kv": 2.0, "fresh": 0.0},  # no per_token_s: an older cache
    "peak_flop_per_s": 1e11,
    "bytes_per_s": 2e10,
    "shapes": [[1, 128], [4, 512], [16, 2048]],
    "train_abs_error": [0.10, 0.02, 0.04],  # median 4 %
}


def test_the_line_names_the_gemm_routes_residual_and_median_error() -> None:
    assert _decode_model_line(CACHED) == (
        "decode model on 3 shapes; GEMM min(1.50× per row, 3.00× + nan× compute); "
        "KV copy 2.00×, fresh pages 0.00×, fixed +1.00 ms; train median |error| 4.0%"
    )
