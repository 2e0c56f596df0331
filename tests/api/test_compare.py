"""api.compare: per-op and total deltas; refusing incomparable runs unless forced."""

from __future__ import annotations

import pytest

from rooftop.api import analyze, workloads_for
from rooftop.api.compare import compare, incompatibilities
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import ReportError
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset

H100 = get_roofs("h100-sxm")


def _run(model: str = "llama-3.1-8b", roofs=H100, **dtypes: str):  # type: ignore[no-untyped-def]
    spec = load_preset(model)
    base = Workload(**dtypes)  # type: ignore[arg-type]
    return analyze(spec, roofs, workloads_for([Phase.DECODE], [1, 64], [2048], [8192], base))


def test_fp8_kv_halves_kv_bytes_and_pairs_every_op() -> None:
    cmp = compare(_run(), _run(kv_dtype="fp8"))
    assert len(cmp.results) == 2 and not cmp.unpaired
    big = next(r for r in cmp.results if r.key["batch"] == 64)
    score = next(o for o in big.ops if o.name == "attn_score")
    # K read at batch 64, context 8192: 64 · 8192 · 1024 · 32 layers · 2 B (bf16) -> 1 B (fp8): bytes fall
    assert score.after_bytes < score.before_bytes
    q = next(o for o in big.ops if o.name == "q_proj")
    assert q.time_ratio == pytest.approx(1.0)  # weights untouched
    before, after = big.totals["time_s"]
    assert before is not None and after is not None and after < before


def test_bound_change_is_flagged() -> None:
    # 1000 TB/s moves the ridge to 989.4 / 1000 ≈ 1 FLOP/B: q_proj at batch 64 (≈ 64 FLOP/B) turns compute-bound
    fast = H100.with_overrides(bandwidth_bytes_per_s=1000e12)
    cmp = compare(_run(), _run(roofs=fast))
    big = next(r for r in cmp.results if r.key["batch"] == 64)
    q = next(o for o in big.ops if o.name == "q_proj")
    assert (q.before_bound, q.after_bound, q.bound_changed) == ("memory:weights", "compute", True)


@pytest.mark.filterwarnings("ignore:context")
def test_different_models_are_refused_unless_forced() -> None:
    a, b = _run(), _run("llama-2-7b")
    assert incompatibilities(a, b) == ["different models ('llama-3.1-8b' vs 'llama-2-7b')"]
    with pytest.raises(ReportError, match="different models"):
        compare(a, b)
    forced = compare(a, b, force=True)
    assert forced.warnings and forced.results


def test_different_hardware_is_refused() -> None:
    with pytest.raises(ReportError, match="different hardware"):
        compare(_run(), _run(roofs=get_roofs("a100-80gb-sxm")))
