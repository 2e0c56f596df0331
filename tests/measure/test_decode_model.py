"""The decode model: NNLS, the two GEMM routes, the fresh-page feature, and recovery of known parameters."""

import json

import msgspec
import pytest

from rooftop.api.analysis import analyze_one
from rooftop.core.points import Phase
from rooftop.core.roofs import ComputeRoof, MemoryRoof, Roofs
from rooftop.core.workload import Workload
from rooftop.errors import MeasurementError
from rooftop.measure import decode_model as dm
from rooftop.measure.sweep import SHAPES
from rooftop.models.presets import load_preset

ROOFS = Roofs("cpu:toy", (ComputeRoof("fp32", 100e9),), (MemoryRoof("hbm", 20e9),))
SPEC = load_preset("llama-cpu-small")  # hidden 1024, 4 layers, 4 KV heads of 64, fp32
HELD_OUT = [(b, c) for b in (1, 4, 16, 32) for c in (128, 512, 2048)]


def points(batch, context):
    w = Workload(Phase.DECODE, batch=batch, context=context, weight_dtype="fp32", act_dtype="fp32", kv_dtype="fp32")
    return analyze_one(SPEC, w, ROOFS).points


def test_nnls_keeps_coefficients_non_negative():
    # y = 2·x1 exactly; an unconstrained fit of [x1, x2] would be the same, a negative one is refused
    assert dm.nnls([[1, 0], [2, 0], [3, 1]], [2, 4, 6]) == pytest.approx([2.0, 0.0])
    assert dm.nnls([[1.0], [2.0]], [-1.0, -2.0]) == [0.0]  # best non-negative fit of a negative slope


def test_gemm_takes_the_faster_route():
    params = {"v": 1.0, "p": 4.0, "k": 1.0}
    # weight 1 ms at the roof, compute 0.25 ms per token: GEMV route t·1 ms, packed 4 + 0.25·t ms
    at = lambda t: dm.gemm_time_s({"tokens": t, "weight_s": 1e-3, "flops_s": 0.25e-3 * t}, params)  # noqa: E731
    assert at(1) == pytest.approx(1e-3) and at(4) == pytest.approx(4e-3)  # 4 vs 5: still GEMV
    assert at(32) == pytest.approx(12e-3)  # 32 vs 4 + 8: packed


def test_fresh_pages_start_at_32_mib_per_layer_tensor():
    # one layer's K at batch 16: 16 × 4 heads × 64 × 4 B = 16 KiB per token; 2048 tokens = 32 MiB
    below = dm.features(points(16, 2040), 100e9, 20e9)  # 2041 tokens cached
    above = dm.features(points(16, 2048), 100e9, 20e9)
    assert below["fresh_s"] == 0.0 and above["fresh_s"] == above["kv_s"]
    # the whole cache: 2 (K, V) × 4 layers × 2049 × 16 KiB = 268.6 MB; ÷ 20 GB/s = 13.4 ms
    assert above["kv_s"] == pytest.approx(2 * 4 * 2049 * 16 * 1024 / 20e9)


TRUE_GEMM = {"kind": "gemm", "v": 1.5, "p": 3.0, "k": 1.2}  # one route model shared by every GEMM class
TRUE = {
    "classes": {
        **{c: TRUE_GEMM for c in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")},
        "lm_head": TRUE_GEMM,
        "attention": {"kind": "linear", "coef": [20e-6, 0.0, 9.0]},
    },
    "residual": {"const_s": 2e-3, "per_token_s": 0.3e-3, "kv": 10.0, "fresh": 6.0},
    "peak_flop_per_s": 100e9,
    "bytes_per_s": 20e9,
}


def sample(batch, context, extra=None):
    """The true model's step, and its class times as a profiler that slows every step by 20 % sees them."""
    pts = points(batch, context)
    step, parts = dm.predict_step(pts, TRUE)
    seen = {**{c: parts[c] * 1.2 for c in TRUE["classes"]}, **(extra or {})}
    return dm.Sample(pts, seen, step, step * 1.2)


def test_fit_recovers_a_known_model_and_predicts_the_held_out_grid():
    # the profiler's 20 % comes out through profiler_factor (1 / 1.2); a small class (norms) is
    # measured but left to the residual: its time moves nothing in the fit
    train = [sample(b, c, {"attn_norm": 0.3e-3}) for b, c in SHAPES]
    assert not set(SHAPES) & set(HELD_OUT)
    model = dm.fit(train, 100e9, 20e9)
    for cls in ("lm_head", "q_proj"):
        assert [getattr(model.classes[cls], x) for x in ("gemv", "packed", "compute")] == pytest.approx([1.5, 3.0, 1.2])
    assert model.classes["attention"].to_dict()["coef"] == pytest.approx([20e-6, 0.0, 9.0], abs=1e-9)
    assert msgspec.structs.asdict(model.residual) == pytest.approx(TRUE["residual"], rel=1e-6, abs=1e-9)
    assert max(model.train_abs_error) < 1e-9 and "attn_norm" not in model.classes
    assert model.profiler_factor == pytest.approx(1 / 1.2) and model.left_out is None
    for b, c in HELD_OUT:
        truth = sample(b, c).step_s
        assert dm.predict_step(points(b, c), model)[0] == pytest.approx(truth, rel=1e-6)


def test_gemv_route_at_one_token_and_packed_route_beyond_are_both_found():
    model = dm.fit([sample(b, c) for b, c in SHAPES], 100e9, 20e9)
    f1 = dm.features(points(1, 128), 100e9, 20e9)["classes"]["lm_head"]
    f32 = dm.features(points(32, 128), 100e9, 20e9)["classes"]["lm_head"]
    assert model.classes["lm_head"].route(f1) == "v" and model.classes["lm_head"].route(f32) == "p"


def test_a_class_the_model_never_saw_costs_nothing():
    assert dm.class_time_s("no_such_op", dm.features(points(1, 128), 100e9, 20e9), TRUE) == 0.0


def test_a_shape_a_burst_slowed_is_left_out_and_named():
    # the unprofiled step at (8, 1024) measured 1.6× too slow (a neighbour's burst): the first fit misses
    # it and its batch-8 neighbour by more than 3× the median error; both are left out (at most a fifth
    # of the shapes) and the rest fits exactly
    train = [sample(b, c) for b, c in SHAPES]
    k = SHAPES.index((8, 1024))
    train[k] = dm.Sample(train[k].points, train[k].class_times_s, train[k].step_s * 1.6)
    model = dm.fit(train, 100e9, 20e9)
    assert [8.0, 1024] in [list(s[:2]) for s in model.left_out or ()] and len(model.left_out or ()) <= len(SHAPES) // 5
    assert msgspec.structs.asdict(model.residual) == pytest.approx(TRUE["residual"], rel=1e-6, abs=1e-9)


def test_the_cached_json_keeps_its_keys_and_reads_back():
    model = dm.fit([sample(b, c) for b, c in SHAPES], 100e9, 20e9)
    data = model.to_dict()
    assert data["schema"] == "rooftop.decode-model/1" and set(data["classes"]["lm_head"]) == {"kind", "v", "p", "k"}
    assert data["classes"]["attention"]["kind"] == "linear" and len(data["classes"]["attention"]["coef"]) == 3
    assert set(data["residual"]) == {"const_s", "per_token_s", "kv", "fresh"} and "left_out" not in data
    again = dm.DecodeModel.from_dict(json.loads(json.dumps(data)))
    assert again.to_dict() == data  # a cache written before typed models reads back the same
    assert dm.predict_step(points(4, 512), data) == dm.predict_step(points(4, 512), model)
    # an older cache without per_token_s (before the per-token overhead existed) reads as 0
    old = {**data, "residual": {"const_s": 1e-3, "kv": 2.0, "fresh": 0.0}}
    assert dm.DecodeModel.from_dict(old).residual.per_token_s == 0.0
    with pytest.raises(MeasurementError, match="schema 'rooftop.decode-model/2'"):
        dm.DecodeModel.from_dict({**data, "schema": "rooftop.decode-model/2"})


def test_every_window_kind_of_attention_is_one_measured_class():
    # full, sliding-window and chunked layers each get their own score/softmax/value labels in the
    # analytic decomposition; a profile measures all of them as one "attention" class
    for label in ("attn_score", "softmax", "attn_value", "attn_score_swa", "softmax_swa", "attn_value_chunk"):
        assert dm.measured_class(label) == "attention"
    assert dm.measured_class("q_proj") == "q_proj"
    assert dm.measured_class("kv_append") == "kv_append"
