"""One-shape calibration (prefill, and decode without a sweep) and the dispatch to the decode model."""

import pytest

from rooftop.core.points import Phase, RooflinePoint, Source, Traffic
from rooftop.measure import calibrate


def point(label, time_s, source, bound="memory:weights", flops=0.0, kv=0.0):
    traffic = Traffic(kv_read_bytes=kv) if source is Source.ANALYTIC else None
    return RooflinePoint(
        label,
        "gemm",
        Phase.DECODE,
        flops,
        1.0,
        time_s,
        "fp32",
        source,
        traffic=traffic,
        bound=bound,
        provenance={"workload": {"phase": "decode", "batch": 1}},
    )


def test_fit_and_predict_on_the_same_shape_reproduce_the_measured_step():
    # analytic at the roofs: q_proj 1 ms; measured 2 ms -> efficiency 0.5; step 2.5 ms -> overhead 0.5 ms
    measured = [point("q_proj", 2e-3, Source.MEASURED)]
    analytic = [point("q_proj", 1e-3, Source.ANALYTIC)]
    cal = calibrate.fit([("decode", measured, analytic, 2.5e-3)], 20e9)
    assert cal["efficiency"] == {"q_proj|memory": 0.5}
    assert cal["overhead_s"]["decode"] == pytest.approx(0.5e-3)
    points, step = calibrate.predict(analytic, cal, "decode", 20e9)
    assert points[0].time_s == pytest.approx(2e-3)
    assert step == pytest.approx(2.5e-3)


def test_attention_parts_fold_into_one_class():
    assert {calibrate.op_class(x) for x in ("attn_score", "softmax", "attn_value")} == {"attention"}


def test_gemm_curve_interpolates_in_log_tokens_and_clamps():
    curve = {"1": 0.2, "4": 0.6, "16": 1.0}
    assert calibrate.curve_at(curve, 2) == pytest.approx(0.4)  # halfway between 1 and 4 in log
    assert calibrate.curve_at(curve, 0.5) == 0.2 and calibrate.curve_at(curve, 64) == 1.0


def test_the_gemm_curve_moves_a_gemm_class_with_tokens():
    # fitted at 1 token (efficiency 0.5); the curve says 4 tokens run 3× as efficiently as 1 -> 1.5
    measured = [point("q_proj", 2e-3, Source.MEASURED)]
    analytic = [point("q_proj", 1e-3, Source.ANALYTIC)]
    cal = calibrate.fit([("decode", measured, analytic, 2e-3)], 20e9, {1: 0.2, 4: 0.6})
    at4 = [RooflinePoint("q_proj", "gemm", Phase.DECODE, 0.0, 1.0, 1e-3, "fp32", Source.ANALYTIC,
                         bound="memory:weights", provenance={"workload": {"phase": "decode", "batch": 4}})]  # fmt: skip
    points, _ = calibrate.predict(at4, cal, "decode", 20e9)
    assert points[0].time_s == pytest.approx(1e-3 / 1.5)


def test_unseen_class_falls_back_to_the_median_of_its_regime():
    measured = [point("q_proj", 2e-3, Source.MEASURED), point("o_proj", 4e-3, Source.MEASURED)]
    analytic = [point("q_proj", 1e-3, Source.ANALYTIC), point("o_proj", 1e-3, Source.ANALYTIC)]
    cal = calibrate.fit([("decode", measured, analytic, 6e-3)], 20e9)  # efficiencies 0.5 and 0.25
    points, _ = calibrate.predict([point("down_proj", 1e-3, Source.ANALYTIC)], cal, "decode", 20e9)
    assert points[0].time_s == pytest.approx(1e-3 / 0.375) and points[0].provenance["calibrated"] == "fallback"


def test_kv_append_is_fitted_against_the_whole_cache():
    # torch.cat copies the cache: 2 × 10 MB KV read / 20 GB/s = 1 ms + the analytic 0.1 ms; measured 2.2 ms -> 0.5
    measured = [point("kv_append", 2.2e-3, Source.MEASURED)]
    analytic = [point("kv_append", 0.1e-3, Source.ANALYTIC), point("attn_score", 0.5e-3, Source.ANALYTIC, kv=10e6)]
    cal = calibrate.fit([("decode", measured, analytic, 3e-3)], 20e9)
    assert cal["efficiency"]["kv_append|memory"] == pytest.approx(0.5)


def test_a_decode_model_takes_over_decode_but_not_prefill():
    model = {"classes": {"q_proj": {"kind": "linear", "coef": [3e-3, 0.0, 0.0]}}, "peak_flop_per_s": 100e9,
             "bytes_per_s": 20e9, "residual": {"const_s": 1e-3, "kv": 0.0, "fresh": 0.0}}  # fmt: skip
    cal = {"efficiency": {"q_proj|memory": 0.5}, "overhead_s": {}, "decode_model": model}
    points, step = calibrate.predict([point("q_proj", 1e-3, Source.ANALYTIC)], cal, "decode", 20e9)
    assert step == pytest.approx(4e-3) and points[0].time_s == pytest.approx(3e-3)  # 3 ms class + 1 ms overhead
    assert points[0].provenance["calibrated"] == "decode-model"
    _, prefill = calibrate.predict([point("q_proj", 1e-3, Source.ANALYTIC)], cal, "prefill", 20e9)
    assert prefill == pytest.approx(2e-3)  # the one-shape efficiency 0.5
