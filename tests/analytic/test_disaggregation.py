import math

import pytest

from rooftop.analytic.disaggregation import decode_batch_for, kv_transfer_bytes, link_rate, size_pools
from rooftop.analytic.engine import evaluate
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import CatalogError, WorkloadError
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset


def test_kv_bytes_per_request_and_link():
    spec, roofs = load_preset("llama-3.1-8b"), get_roofs("h100-sxm")
    w = Workload(phase=Phase.DECODE, prompt=2048)
    # 32 layers × 2 (K, V) × 8 KV heads × 128 × 2 B = 131,072 B per token × 2048 tokens
    assert kv_transfer_bytes(spec, w) == 268_435_456
    assert link_rate(roofs, "inter", 1) == 50e9  # one 400 Gb/s NIC per GPU
    assert link_rate(roofs, "intra", 4) == 4 * 450e9  # 4 GPUs each on NVLink, 450 GB/s per direction
    with pytest.raises(CatalogError, match="network"):
        link_rate(get_roofs("l4"), "inter", 1)


def test_pools_for_a_rate():
    spec, roofs = load_preset("llama-3.1-8b"), get_roofs("h100-sxm")
    w = Workload(phase=Phase.DECODE, prompt=2048, context=2304)
    pools = size_pools(spec, roofs, w, rate_per_s=40, output_tokens=256, link="inter", tpot_slo_s=0.03)
    prefill_s = float(evaluate(spec, Workload(phase=Phase.PREFILL, batch=1, prompt=2048), roofs).time_s)
    assert pools.prefill_s == pytest.approx(prefill_s)  # ≈ 33 ms per prompt
    assert pools.prefill_instances == math.ceil(40 * prefill_s)  # 40 req/s × 33 ms = 1.3 -> 2
    assert pools.transfer_s == pytest.approx(268_435_456 / 50e9)  # 5.37 ms
    assert pools.ttft_s == pytest.approx(prefill_s + 268_435_456 / 50e9)
    batch, tpot = decode_batch_for(spec, roofs, w, 0.03, 0.9)
    assert tpot <= 0.03 and (batch, tpot) == (pools.decode_batch, pools.tpot_s)
    # Little's law: 40 req/s × 256 tokens × TPOT in flight, B per instance
    assert pools.decode_instances == math.ceil(40 * 256 * tpot / batch)
    assert pools.tokens_per_s_per_gpu == pytest.approx(40 * 256 / (pools.prefill_gpus + pools.decode_gpus))
    with pytest.raises(WorkloadError, match="TPOT"):
        size_pools(spec, roofs, w, 1.0, 256, tpot_slo_s=1e-6)
