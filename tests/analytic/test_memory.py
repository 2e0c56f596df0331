import numpy as np
import pytest

from rooftop.analytic.memory import budget, weights_bytes_per_gpu
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset
from rooftop.units import GIB


def test_llama31_8b_on_h100_budget():
    spec = load_preset("llama-3.1-8b")
    w = Workload(phase=Phase.DECODE, batch=np.array([1, 64]), context=2048)
    m = budget(spec, w, get_roofs("h100-sxm").capacity_bytes)
    assert m.usable_bytes == 0.9 * 80 * GIB
    assert m.weights_bytes == 8_030_261_248 * 2  # 16.06 GB
    np.testing.assert_allclose(m.kv_bytes_per_sequence, 131_072 * 2049)  # 268.6 MB per sequence
    np.testing.assert_allclose(m.kv_cache_bytes, [131_072 * 2049, 64 * 131_072 * 2049])
    # usable 0.9 x 80 GiB = 77,309,411,328 B - weights 16,060,522,496 B = 61,248,888,832 B for sequences;
    # per sequence: KV 131,072 x 2049 = 268,566,528 B + activations (2x4096 + 2x14336) x 2 B = 73,728 B
    # + fp32 logits 128,256 x 4 = 513,024 B -> 269,153,280 B; 61,248,888,832 / 269,153,280 = 227.6 -> 227
    assert int(m.max_batch) == 227
    assert bool(m.fits.all())


def test_tp_and_quantisation_shrink_weights():
    spec = load_preset("llama-3.1-70b")
    w = Workload(phase=Phase.DECODE, weight_dtype="int4", tp=4)
    # params x (0.5 + 2/128) B / 4 GPUs
    assert weights_bytes_per_gpu(spec, w) == pytest.approx(70_553_706_496 * 0.515625 / 4)


def test_does_not_fit():
    spec = load_preset("llama-3.1-405b")
    m = budget(spec, Workload(phase=Phase.DECODE), get_roofs("h100-sxm").capacity_bytes)
    assert not bool(m.fits)
    assert int(m.max_batch) == 0


def test_gemma4_kv_per_sequence_by_layer_kind_and_tp():
    # Gemma 4 26B-A4B at tp 4, decode at 32,768 cached tokens (32,769 after the step), bf16. Sliding
    # layers keep 1,024 tokens of 8 / 4 = 2 KV heads per GPU: 25 x 1,024 x 2 x (256 + 256) x 2 B =
    # 52,428,800 B; the full layers' 2 KV heads cannot split 4 ways, so each GPU keeps one:
    # 5 x 32,769 x 1 x (512 + 512) x 2 B = 335,554,560 B
    from rooftop.analytic.memory import kv_bytes_per_sequence
    from rooftop.models.hf_config import load_config_file
    from tests.conftest import data_path

    spec = load_config_file(data_path("configs", "gemma-4-moe"))
    w = Workload(phase=Phase.DECODE, batch=1, context=32768, tp=4)
    assert float(kv_bytes_per_sequence(spec, w)) == 52_428_800 + 335_554_560
