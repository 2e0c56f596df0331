import pytest

from rooftop.core.points import Phase, RooflinePoint, Source, Traffic
from rooftop.core.roofs import ComputeRoof, MemoryRoof, RoofKind, Roofs
from rooftop.errors import ArtifactError
from rooftop.measure import cache, calibrate

ROOFS = Roofs(
    "cpu:test",
    (ComputeRoof("fp32", 100e9, RoofKind.MEASURED, "test"),),
    (MemoryRoof("hbm", 20e9, RoofKind.MEASURED, "test"),),
    identity={"spread": {"compute.fp32": 0.02}},
)


def test_roofs_and_calibration_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFTOP_CACHE_DIR", str(tmp_path))
    assert cache.load_roofs("cpu", 1) is None
    with pytest.raises(ArtifactError):
        cache.save_calibration({"efficiency": {}}, "cpu", 1)
    path = cache.save_roofs(ROOFS, "cpu", 1)
    assert path.parent == tmp_path and path.name.endswith("-t1.json")
    assert cache.load_roofs("cpu", 1).peak("fp32") == 100e9
    cache.save_calibration({"efficiency": {"q_proj|memory": 0.5}}, "cpu", 1)
    assert cache.load_calibration("cpu", 1)["efficiency"]["q_proj|memory"] == 0.5


def test_unreadable_cache_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFTOP_CACHE_DIR", str(tmp_path))
    cache.cache_path("cpu", 1).write_text("{not json")
    with pytest.raises(ArtifactError, match="unreadable roof cache"):
        cache.load_roofs("cpu", 1)


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
