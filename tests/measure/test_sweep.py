import pytest

from rooftop.measure import sweep

pytest.importorskip("transformers")


def test_time_shape_gives_an_unprofiled_step_and_class_times(tiny_built):
    t = sweep.time_shape(tiny_built, batch=2, context=16, reps=3, profiled=2)
    assert (t.batch, t.context) == (2, 16) and t.step_s > 0 and t.profiled_step_s > 0
    assert {"q_proj", "attention", "lm_head", "kv_append"} <= set(t.class_times_s)
    assert all(v >= 0 for v in t.class_times_s.values())


def test_sweep_reports_progress_per_shape(tiny_built):
    said = []
    out = sweep.decode_sweep(tiny_built, [(1, 8), (2, 8)], progress=said.append)
    assert [(s.batch, s.context) for s in out] == [(1, 8), (2, 8)] and len(said) == 2


def test_sweep_shapes_avoid_the_held_out_grid_and_run_fresh_page_shapes_first():
    held_out = {(b, c) for b in (1, 4, 16, 32) for c in (128, 512, 2048)}
    assert not set(sweep.SHAPES) & held_out
    # llama-cpu-small: one layer's K is batch × 4 KV heads × 64 × 4 B = batch × 1 KiB per token
    over_32_mib = [b * c * 1024 > 32 * 2**20 for b, c in sweep.SHAPES]
    assert over_32_mib == [True, True] + [False] * (len(sweep.SHAPES) - 2)
