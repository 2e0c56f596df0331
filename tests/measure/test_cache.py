import pytest

from rooftop.core.roofs import ComputeRoof, MemoryRoof, RoofKind, Roofs
from rooftop.errors import ArtifactError
from rooftop.measure import cache

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


def test_not_a_roofs_file_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFTOP_CACHE_DIR", str(tmp_path))
    cache.cache_path("cpu", 1).write_text('{"schema": "something/else"}')
    with pytest.raises(ArtifactError, match="not a rooftop.roofs/1 file"):
        cache.load_roofs("cpu", 1)


def test_cache_path_is_keyed_by_device_name_and_threads(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFTOP_CACHE_DIR", str(tmp_path))
    assert cache.cache_path("cpu", 2, name="AMD EPYC (tm) 9000").name == "roofs-cpu-amd-epyc-tm-9000-t2.json"
    assert cache.cache_path("cuda", 1, name="NVIDIA H200").name == "roofs-cuda-nvidia-h200.json"
