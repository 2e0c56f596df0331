"""Calibrated analysis: cached roofs + calibration, applied to analytic results, and the held-out check."""

import re

import pytest

from rooftop.api import calibrated
from rooftop.api.analysis import analyze
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import MeasurementError
from rooftop.measure import cache
from rooftop.models.presets import load_preset
from tests.measure.tiny import ROOFS

SPEC = load_preset("llama-cpu-small")
# a decode model that costs 2 ms per GEMM class at any shape (GEMV route: v·tokens·weight_s is tiny), 1 ms
# overhead, and copies the KV cache at half the bandwidth (kv = 2)
MODEL = {
    "schema": "rooftop.decode-model/1",
    "classes": {"lm_head": {"kind": "linear", "coef": [2e-3, 0.0, 0.0]}},
    "residual": {"const_s": 1e-3, "kv": 2.0, "fresh": 0.0},
    "peak_flop_per_s": 90e9,
    "bytes_per_s": 20e9,
}
CALIBRATION = {"efficiency": {"lm_head|memory": 0.5}, "overhead_s": {"prefill": 0.0}, "decode_model": MODEL,
               "model": "llama-cpu-small"}  # fmt: skip


@pytest.fixture
def cached(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFTOP_CACHE_DIR", str(tmp_path))
    cache.save_roofs(ROOFS, "cpu", 1)
    cache.save_calibration(CALIBRATION, "cpu", 1)


def decode(batch=1, context=1000):
    return Workload(Phase.DECODE, batch=batch, context=context, weight_dtype="fp32", act_dtype="fp32", kv_dtype="fp32")


def test_no_calibration_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFTOP_CACHE_DIR", str(tmp_path))
    with pytest.raises(MeasurementError, match=r"no calibration cached for cpu \(1 thread\(s\)\); profile it first$"):
        calibrated.load_calibrated_roofs("cpu", 1)


def test_decode_step_is_the_decode_models(cached):
    run = calibrated.analyze_calibrated(SPEC, [decode()])
    (result,) = run.results
    # KV at context 1000: 2 (K, V) × 4 layers × 1001 positions × 4 heads × 64 × 4 B = 8,200,192 B;
    # ÷ 20 GB/s × 2 = 0.82 ms; + lm_head 2 ms + overhead 1 ms = 3.82 ms
    assert result.extra["calibrated"]["step_time_s"] == pytest.approx(3e-3 + 2 * 8_200_192 / 20e9)
    assert result.totals.time_s == result.extra["calibrated"]["step_time_s"]
    assert run.command == "analyze --calibrated" and run.identity["calibration"]["from_model"] == "llama-cpu-small"
    lm = next(p for p in result.points if p.label == "lm_head")
    assert lm.time_s == pytest.approx(2e-3) and lm.provenance["calibrated"] == "decode-model"


def test_mfu_scales_with_the_calibrated_time(cached):
    plain = analyze(SPEC, ROOFS, [decode()]).results[0]
    roofs, calibration = calibrated.load_calibrated_roofs("cpu", 1)
    cal = calibrated.apply_calibration(plain, calibration, roofs)
    assert cal.totals.mfu == pytest.approx(plain.totals.mfu * plain.totals.time_s / cal.totals.time_s)


def test_prefill_uses_the_one_shape_efficiency(cached):
    w = Workload(Phase.PREFILL, batch=1, prompt=64, weight_dtype="fp32", act_dtype="fp32", kv_dtype="fp32")
    plain = analyze(SPEC, ROOFS, [w]).results[0]
    (result,) = calibrated.analyze_calibrated(SPEC, [w]).results
    lm = lambda r: next(p for p in r.points if p.label == "lm_head")  # noqa: E731
    assert lm(result).time_s == pytest.approx(lm(plain).time_s / 0.5)


def test_heldout_error_compares_real_steps_with_predictions(cached, tmp_path):
    pytest.importorskip("transformers")
    import json

    from tests.measure.tiny import TINY

    (tmp_path / "tiny").mkdir()
    (tmp_path / "tiny" / "config.json").write_text(json.dumps(TINY))
    said = []
    out = calibrated.heldout_error(str(tmp_path / "tiny"), [(1, 8), (2, 16), (3, 8)], progress=said.append)
    assert [(r["batch"], r["context"]) for r in out["rows"]] == [(1, 8), (2, 16), (3, 8)] and len(said) == 3
    for r in out["rows"]:
        assert r["measured_s"] > 0 and r["error"] == pytest.approx(r["predicted_s"] / r["measured_s"] - 1)
    errors = sorted(abs(r["error"]) for r in out["rows"])
    assert out["median_abs_error"] == errors[1]
    assert out["p90_abs_error"] == pytest.approx(errors[1] + 0.8 * (errors[2] - errors[1]))  # position 0.9 × 2 = 1.8


def test_quantile_interpolates():
    assert calibrated._quantile([0.0, 10.0, 20.0], 0.9) == pytest.approx(18.0)
    assert calibrated._quantile([5.0], 0.9) == 5.0


def test_findings_quote_the_tables_mfu_and_mbu(cached):
    # issue 10: `analyze --calibrated -m llama-cpu-small --phase decode -b 1,8,32 -c 1024` printed MFU/MBU
    # 5.4 % / 32.3 % in the table and "MBU 100 % at the roof, MFU 16.5 %" in its finding (the roofline's).
    # Here the test calibration is faster than the roof (3.84 ms for 320.5 MB at 20 GB/s = 16.0 ms):
    # MBU = 16.03 / 3.84 = 417 %, which the table, the bound finding and an over-100 % finding all quote.
    run = calibrated.analyze_calibrated(SPEC, [decode(b, 1024) for b in (1, 8, 32)])
    for result in run.results:
        t = result.totals
        titles = " | ".join(f.title for f in result.findings)
        for name, value in (("MBU", t.mbu), ("MFU", t.mfu)):
            quoted = set(re.findall(name + r" ([\d.,]+)%", titles))
            assert quoted <= {f"{value * 100:.0f}", f"{value * 100:.1f}"}, (name, quoted, value)
            assert quoted or result is not run.results[0]  # batch 1 is weight-bound: its finding quotes both
    first = run.results[0]
    assert first.totals.mbu == pytest.approx(4.17, abs=0.01)
    over = next(f for f in first.findings if f.code == "mbu-over-100")
    assert "MBU 417% is above 100%" in over.title and "cache" in over.title
