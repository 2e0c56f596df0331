"""api.sweep: the §15 findings and the goodput-optimal operating point (not the right-most point)."""

from __future__ import annotations

import pytest

from rooftop.api.sweep import COLUMNS, Cohort, parse_cohort, sweep
from rooftop.core import artifact
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset

SPEC = load_preset("llama-3.1-8b")
ROOFS = get_roofs("h100-sxm")
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


@pytest.fixture(scope="module")
def run():  # type: ignore[no-untyped-def]
    return sweep(SPEC, ROOFS, Workload(), BATCHES, None, [Cohort(2048, 256)], SLO(tpot_s=0.050))


def _finding(run, code: str):  # type: ignore[no-untyped-def]
    return next(f for f in run.results[0].findings if f.code == code)


def test_operating_point_meets_the_slo_and_is_not_the_rightmost(run) -> None:  # type: ignore[no-untyped-def]
    result = run.results[0]
    # context defaults to prompt + output = 2304: the KV cache admits 202 sequences, so batch 256 and 512
    # do not fit; TPOT at 128 is ≈ 16.4 ms ≤ 50 ms, and goodput grows with batch up to there.
    assert result.extra["operating_point"] == {"batch": 128, "context": 2304}
    f = _finding(run, "sweep-operating-point")
    assert f.evidence["tpot_s"] <= 0.050
    assert f.evidence["rightmost_batch"] == 512
    assert f.evidence["rightmost_goodput_tokens_per_s"] == 0
    assert "not the right-most batch 512" in f.title
    # goodput = B·out / (B·TTFT + out·TPOT) = 128·256 / (128·0.03298 + 256·0.01643) ≈ 3,888 tokens/s
    assert f.evidence["goodput_tokens_per_s"] == pytest.approx(128 * 256 / (128 * 0.032984 + 256 * 0.016434), rel=1e-3)
    assert result.totals is not None and result.totals.time_s == pytest.approx(f.evidence["tpot_s"])


def test_every_section15_finding_is_there(run) -> None:  # type: ignore[no-untyped-def]
    codes = {f.code for f in run.results[0].findings}
    assert codes == {
        "sweep-operating-point",
        "sweep-linear-throughput",
        "sweep-hbm-saturated",
        "sweep-ridge-crossing",
        "sweep-kv-admission",
    }
    assert _finding(run, "sweep-kv-admission").evidence["max_batch_by_context"] == {"2304": 202}
    ridge = _finding(run, "sweep-ridge-crossing")
    assert ridge.evidence["gemm_ridge_batch"] == pytest.approx(331.2, abs=0.1)
    assert ridge.evidence["first_grid_batch_past_ridge"] == 512
    assert "never does" in ridge.title  # KV reads grow with batch: the whole step stays below the ridge
    # step time at batch 4 is within 10 % of batch 1 (4.85 vs 4.57 ms), at batch 8 it is not (5.23 ms)
    assert _finding(run, "sweep-linear-throughput").evidence["linear_until_batch"] == 4


def test_a_grid_without_a_linear_range_says_so() -> None:
    # batch 1 → 64 at context 2304: 4.57 ms → 10.5 ms (16.1 GB of weights + 64 × 2304 × 128 KiB = 19.3 GB
    # of KV at 3.35 TB/s), more than 10 % apart: no "from 1 to 1" range
    run = sweep(SPEC, ROOFS, Workload(), [1, 64], None, [Cohort(2048, 256)], SLO(tpot_s=0.050))
    f = _finding(run, "sweep-linear-throughput")
    assert f.evidence["linear_until_batch"] == 1
    assert f.title == (
        "No linear range on this grid at context 2304: step time rises 2.3× from batch 1 to 64 "
        "(4.57 ms → 10.5 ms, more than 10%): a linear range, if any, ends between them"
    )


def test_tight_slo_moves_the_point_left() -> None:
    run = sweep(SPEC, ROOFS, Workload(), BATCHES, None, [Cohort(2048, 256)], SLO(tpot_s=0.006))
    # TPOT 5.97 ms at batch 16, 7.47 ms at 32 (context 2304)
    assert run.results[0].extra["operating_point"]["batch"] == 16


def test_impossible_slo_is_a_critical_finding() -> None:
    run = sweep(SPEC, ROOFS, Workload(), [1, 2], None, [Cohort(2048, 256)], SLO(ttft_s=0.001))
    f = next(f for f in run.results[0].findings if f.code == "sweep-operating-point")
    assert f.severity == "critical" and "TTFT" in f.title
    assert run.results[0].extra["operating_point"] is None


def test_cohorts_are_separate_results_and_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cohorts = [parse_cohort("chat=1024:128"), parse_cohort("report=8192:2048")]
    run = sweep(SPEC, ROOFS, Workload(), [1, 8, 64], [1024, 8192], cohorts, SLO(tpot_s=0.05))
    assert [r.workload["cohort"] for r in run.results] == ["chat", "report"]
    table = run.results[0].extra["sweep"]
    assert table["columns"] == list(COLUMNS)
    assert len(table["rows"]) == 3 * 2
    assert len(run.results[0].points) == 6  # one roofline point per cell
    path = tmp_path / "sweep.json"
    path.write_text(artifact.dumps(run))
    back = artifact.load(path)
    assert back.results[1].extra["sweep"]["rows"][0][:3] == ["decode", 1, 1024]


@pytest.mark.parametrize("text", ["2048", "a:b", "chat=0:5", "=:"])
def test_bad_cohorts(text: str) -> None:
    with pytest.raises(WorkloadError, match="cohort"):
        parse_cohort(text)
