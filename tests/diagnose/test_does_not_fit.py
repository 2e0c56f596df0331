"""A setup that does not fit in memory: a critical finding that says what would fit; the roofline still shows."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from rooftop.api import analyze
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.diagnose.evidence.memory import MemoryEvidence
from rooftop.diagnose.rules.does_not_fit import what_fits
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset
from rooftop.units import GIB


def _decode(**kw):  # type: ignore[no-untyped-def]
    w = Workload(phase=Phase.DECODE, batch=1, context=2048, weight_dtype="fp16", act_dtype="fp16", kv_dtype="fp16")
    return analyze(load_preset("llama-2-70b"), get_roofs("h100-sxm"), [replace(w, **kw)])


def test_llama2_70b_fp16_on_one_h100_does_not_fit() -> None:
    # issue 10: this printed 41.2 ms/token, "free -57.10 GiB", and no finding said the setup cannot run
    (result,) = _decode().results
    f = result.findings[0]
    assert f.code == "does-not-fit" and f.severity == "critical"
    # weights 137,953,296,384 B = 128.5 GiB (69.0 G params × 2 B), KV at 2048 = 0.6 GiB; usable 0.9 × 80 GiB = 72 GiB
    assert "129.1 GiB needed per GPU (weights 128.5 GiB, KV 0.6 GiB) > 72.0 GiB usable on h100-sxm" in f.title
    # TP 2 halves both: 64.6 GiB fits; fp8 weights: 64.2 GiB + 0.6 GiB KV fits; fp8 KV alone does not
    assert f.evidence["options"] == [
        "--tp 2 (64.6 GiB of weights and KV per GPU)",
        "--weight-dtype fp8 (weights 64.2 GiB)",
    ]
    assert result.points and result.totals is not None and result.totals.time_s == pytest.approx(41.2e-3, rel=0.01)


def test_the_suggested_setups_fit() -> None:
    for kw in ({"tp": 2}, {"weight_dtype": "fp8"}):
        (result,) = _decode(**kw).results
        assert result.memory["fits"] and not any(f.code == "does-not-fit" for f in result.findings)


def test_kv_dtype_is_named_when_the_kv_is_what_overflows() -> None:
    # weights 40 GiB + KV 40 GiB + act 0 > 72 GiB usable; fp8 KV: 40 + 20 = 60 fits; fp8 weights: 20 + 40 fits too
    memory = MemoryEvidence(40 * GIB, 40 * GIB, 0.0, 72 * GIB, -8 * GIB, False)
    options = what_fits(memory, 1, "bf16", "bf16")
    assert options == [
        "--tp 2 (40.0 GiB of weights and KV per GPU)",
        "--weight-dtype fp8 (weights 20.0 GiB)",
        "--kv-dtype fp8 (KV 20.0 GiB)",
    ]
