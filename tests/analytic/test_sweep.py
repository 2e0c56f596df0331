"""The vectorised sweep: acceptance numbers by hand (llama-3.1-8b on h100-sxm, bf16) and relations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rooftop.analytic.engine import evaluate
from rooftop.analytic.memory import budget
from rooftop.analytic.sweep import BOUND_CODES, sweep_grid
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset

SPEC = load_preset("llama-3.1-8b")
ROOFS = get_roofs("h100-sxm")
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
CONTEXTS = [512, 2048, 2304, 8192, 32768]


@pytest.fixture(scope="module")
def grid():  # type: ignore[no-untyped-def]
    return sweep_grid(SPEC, ROOFS, Workload(), BATCHES, CONTEXTS, prompt=2048, output_tokens=256)


def test_ridge_crossing_batch_by_hand(grid) -> None:  # type: ignore[no-untyped-def]
    # GEMM weight elements per layer: q 4096² + k,v 2·4096·1024 + o 4096² + gate/up/down 3·4096·14336
    #   = 16,777,216 + 8,388,608 + 16,777,216 + 176,160,768 = 218,103,808; × 32 layers = 6,979,321,856
    #   + lm_head 4096 · 128,256 = 525,336,576 -> 7,504,658,432 elements
    weights = 7_504_658_432 * 2  # bf16 bytes = 15,009,316,864
    flops = 2 * 7_504_658_432  # per sequence (one token): 2 FLOP per multiply-add
    # activations per sequence, (k + n) elements per GEMM, 2 B each:
    # per layer (4096+4096)+2·(4096+1024)+(4096+4096)+2·(4096+14336)+(14336+4096) = 81,920 -> ×32 = 2,621,440
    # lm_head 4096 + 128,256 = 132,352 -> 2,753,792 elements = 5,507,584 B
    act = 5_507_584
    ridge = 989.4e12 / 3.35e12  # 295.34 FLOP/B
    expected = ridge * weights / (flops - ridge * act)  # = 331.2
    assert grid.gemm_ridge_batch() == pytest.approx(expected, rel=1e-9)
    assert grid.gemm_ridge_batch() == pytest.approx(331.2, abs=0.1)


def test_kv_admission_by_hand(grid) -> None:  # type: ignore[no-untyped-def]
    # usable = 80 GiB × 0.9 = 85,899,345,920 × 0.9 = 77,309,411,328 B; weights 8,030,261,248 params × 2 B
    room = 85_899_345_920 * 0.9 - 8_030_261_248 * 2  # 61,248,888,832 B
    kv_per_token = 32 * 2 * 1024 * 2  # layers × (K,V) × kv_dim × bf16 = 131,072 B
    act = (2 * 4096 + 2 * 14336) * 2 + 128_256 * 4  # widest live tensors + fp32 logits = 586,752 B
    for c, limit in zip(CONTEXTS, grid.max_batch):
        per_seq = kv_per_token * (c + 1) + act  # the step's KV holds c cached + 1 new token
        assert limit == int(room // per_seq)
    # context 2304 = prompt 2048 + output 256: 61,248,888,832 / 302,707,712 = 202.3 -> 202
    assert list(grid.max_batch) == [903, 227, 202, 57, 14]
    # and memory.budget's own max_batch agrees at each context
    for c, limit in zip(CONTEXTS, grid.max_batch):
        mem = budget(SPEC, Workload(phase=Phase.DECODE, batch=1, context=c), ROOFS.capacity_bytes)
        assert float(mem.max_batch) == limit


def test_tpot_at_batch_128_by_hand(grid) -> None:  # type: ignore[no-untyped-def]
    i, j = BATCHES.index(128), CONTEXTS.index(2304)
    # memory-bound: GEMM weights 15,009,316,864 B + KV read 128 seq × 2304 past × 131,072 B = 38,654,705,664 B
    approx = (15_009_316_864 + 38_654_705_664) / 3.35e12  # = 16.02 ms (+ activations, small ops)
    assert grid.tpot_s[i, j] == pytest.approx(approx, rel=0.03)
    assert grid.tpot_s[i, j] <= 0.050


def test_ttft_is_prefill_of_the_prompt(grid) -> None:  # type: ignore[no-untyped-def]
    ev = evaluate(SPEC, Workload(phase=Phase.PREFILL, batch=1, prompt=2048), ROOFS)
    assert grid.ttft_s == pytest.approx(float(ev.time_s))
    # ≈ 2 FLOP × 8.03e9 params × 2048 tokens / 989.4e12 = 33.2 ms (compute-bound)
    assert grid.ttft_s == pytest.approx(0.033, rel=0.05)


def test_grid_matches_scalar_evaluation(grid) -> None:  # type: ignore[no-untyped-def]
    for b, c in ((1, 512), (64, 8192), (512, 32768)):
        ev = evaluate(SPEC, Workload(phase=Phase.DECODE, batch=b, context=c), ROOFS)
        i, j = BATCHES.index(b), CONTEXTS.index(c)
        assert grid.tpot_s[i, j] == pytest.approx(float(ev.time_s), rel=1e-12)
        assert grid.flops[i, j] == pytest.approx(float(ev.total("flops")), rel=1e-12)


def test_bounds_are_weights_then_kv(grid) -> None:  # type: ignore[no-untyped-def]
    names = np.asarray(BOUND_CODES)[grid.bound.astype(int)]
    assert names[0, 0] == "memory:weights"  # batch 1: 15 GB of weights vs 67 MB of KV
    assert names[-1, -1] == "memory:kv"  # batch 512 at 32k: KV dwarfs the weights


def test_shared_prefix_is_stored_once() -> None:
    plain = sweep_grid(SPEC, ROOFS, Workload(), [1], [4096], prompt=4096, output_tokens=1)
    shared = sweep_grid(
        SPEC, ROOFS, Workload(cached_prefix=2048, prompt=4096), [1], [4096], prompt=4096, output_tokens=1
    )
    assert shared.max_batch[0] > plain.max_batch[0]
    assert shared.ttft_s < plain.ttft_s  # half the prompt is already cached


@pytest.mark.parametrize(
    ("batches", "contexts", "message"),
    [([], [512], "batch grid is empty"), ([1], [], "context grid is empty"), ([4, 2], [512], "increasing")],
)
def test_bad_grids(batches: list[int], contexts: list[int], message: str) -> None:
    with pytest.raises(WorkloadError, match=message):
        sweep_grid(SPEC, ROOFS, Workload(), batches, contexts, prompt=2048, output_tokens=256)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(1, 1024), min_size=2, max_size=6, unique=True),
    st.lists(st.integers(0, 65536), min_size=2, max_size=6, unique=True),
)
def test_monotone_in_batch_and_context(batches: list[int], contexts: list[int]) -> None:
    g = sweep_grid(SPEC, ROOFS, Workload(), sorted(batches), sorted(contexts), prompt=512, output_tokens=64)
    assert np.all(np.diff(g.tpot_s, axis=0) >= 0)  # more sequences never make a step faster
    assert np.all(np.diff(g.tpot_s, axis=1) >= 0)  # longer contexts never make a step faster
    assert np.all(np.diff(g.max_batch) <= 0)  # longer contexts never admit more sequences
    assert np.all(g.fits == (g.batch[:, None] <= g.max_batch[None, :]))
