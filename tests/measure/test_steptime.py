import pytest

from rooftop.measure import steptime

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


def test_filled_cache_holds_the_context_in_every_layer(tiny_built):
    cache = steptime.filled_cache(tiny_built.model, batch=3, context=40, dtype=torch.float32, device="cpu")
    assert cache.get_seq_length() == 40
    layer0 = cache.layers[0]
    assert tuple(layer0.keys.shape) == (3, 2, 40, 16)  # batch, KV heads, positions, head_dim
    assert len(cache.layers) == 2


def test_decode_step_time_is_the_median_of_positive_steps(tiny_built):
    assert 0 < steptime.decode_step_s(tiny_built, batch=2, context=32, reps=3) < 10


def test_settle_allocator_works_without_glibc(monkeypatch):
    import ctypes.util

    steptime.settle_allocator()  # glibc here: frees a block just under 32 MiB and trims the heap
    monkeypatch.setattr(ctypes.util, "find_library", lambda _name: None)
    steptime.settle_allocator()  # no libc found: only the free happens
    assert steptime.SETTLE_BYTES == 32 * 2**20 - 4096
