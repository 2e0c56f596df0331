"""The profile facade in-process on the tiny model: measured beside analytic, calibration stored, Ctrl-C in the sweep."""

from pathlib import Path

import pytest

from rooftop.api import profile as api
from rooftop.core.points import Source
from rooftop.errors import MeasurementError
from rooftop.measure import cache
from tests.measure.tiny import ROOFS, TINY_SHAPES, seed

pytest.importorskip("transformers")


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFTOP_CACHE_DIR", str(tmp_path / "cache"))
    return seed(tmp_path)


def request(tiny, tmp_path, **kw):
    base = dict(model=str(tiny), prompt=16, decode_steps=2, trace_path=tmp_path / "t.json.gz",
                sweep_shapes=(*TINY_SHAPES, (3, 24)))  # fmt: skip
    return api.ProfileRequest(**{**base, **kw})


def test_profile_puts_measured_beside_analytic_and_stores_a_decode_model(tiny, tmp_path):
    run = api.profile(request(tiny, tmp_path))
    assert [r.workload["phase"] for r in run.results] == ["prefill", "decode"]
    for r in run.results:
        assert {p.source for p in r.points} == {Source.MEASURED, Source.ANALYTIC}
        assert r.extra["profile"]["flop_counter_ratio"] == pytest.approx(1.0, abs=1e-3)
        assert r.totals is not None and r.totals.time_s == r.extra["profile"]["step_time_s"]
    assert run.identity["source"] == "measured" and run.identity["shapes"]["prompt"] == 16
    assert run.identity["calibration"] == "stored with a decode model"
    calibration = cache.load_calibration("cpu", 1)
    model = calibration["decode_model"]
    assert [s[0] for s in model["shapes"]] == [2, 4, 3]  # the sweep's batches, in order
    assert {"q_proj", "lm_head", "attention"} <= set(model["classes"])
    assert calibration["model"] == run.identity["model"]["name"]


def test_ctrl_c_during_the_calibration_sweep_keeps_the_profile(tiny, tmp_path, monkeypatch):
    from rooftop.measure import sweep

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep, "time_shape", interrupted)
    run = api.profile(request(tiny, tmp_path))
    assert [r.workload["phase"] for r in run.results] == ["prefill", "decode"]
    assert run.identity["calibration"] == "interrupted: nothing stored" and not run.identity["interrupted"]
    assert cache.load_calibration("cpu", 1) is None


def test_a_profile_that_does_not_fit_is_refused_with_the_numbers(tiny, tmp_path):
    with pytest.raises(MeasurementError, match=r"needs [\d.]+ GiB \(weights [\d.]+, KV [\d.]+, activations"):
        api.profile(request(tiny, tmp_path, model="llama-3.1-405b", batch=64, prompt=8192))


def test_roofs_are_measured_and_cached_when_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFTOP_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(api, "measure_roofs", lambda device, threads, quick, progress: ROOFS)
    said = []
    assert api.roofs_for("cpu", 1, progress=said.append) is ROOFS
    assert "measuring quick roofs" in said[0]
    assert cache.load_roofs("cpu", 1).peak("fp32") == 90e9  # cached: the next call does not measure
    monkeypatch.setattr(api, "measure_roofs", None)
    assert api.roofs_for("cpu", 1).peak("fp32") == 90e9


def test_the_default_trace_goes_beside_the_output_or_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFTOP_CACHE_DIR", str(tmp_path / "cache"))
    assert api.default_trace_path("out/run.json") == Path("out/run-trace.json.gz")
    assert api.default_trace_path("report.html") == Path("report-trace.json.gz")
    assert api.default_trace_path() == tmp_path / "cache" / "rooftop-trace.json.gz"
    assert api.ProfileRequest().trace_path == tmp_path / "cache" / "rooftop-trace.json.gz"
