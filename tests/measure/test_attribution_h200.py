"""Attribution of a real H200 profile trace (tests/data/gpu/README.md has the hand arithmetic).

Three bugs showed only on a GPU: kernels launched through the driver API (cuBLASLt's nvjet GEMMs,
cuDNN attention) had 0 µs, the GPU-timeline mirror of each step range counted as a second step,
and the KV cache's torch.cat (a TensorList without a dtype) counted bf16 at 4 B per element.
"""

import gzip
import json
from collections import defaultdict

import pytest

from rooftop.measure.attribution import attribute
from tests.conftest import data_path

HBM_ROOF = 4.3e12  # roofs-h200.json: 4.30 TB/s measured (copy), spread 1.1 %
LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "lm_head")


@pytest.fixture(scope="module")
def steps():
    with gzip.open(data_path("gpu", "llama-3.2-1b-b16-h200.json.gz"), "rt") as f:
        return attribute(json.load(f), list_bytes=2)  # bf16 model


def by_class(step, field):
    out = defaultdict(float)
    for op in step.ops:
        out[op.cls] += getattr(op, field)
    return out


def test_the_steps_are_the_host_ranges_not_their_gpu_mirrors(steps):
    assert [(s.phase, s.index) for s in steps] == [("prefill", 0), ("decode", 0), ("decode", 1)]
    # the host range of prefill::0 is 42.0 ms; averaged with its 40 µs GPU mirror it read 21 ms
    assert steps[0].time_s == pytest.approx(42.0052e-3, rel=1e-4)


def test_driver_launched_gemms_are_timed(steps):
    for step in steps[1:]:
        time = by_class(step, "time_s")
        assert all(time[cls] > 0 for cls in LINEAR), {cls: time[cls] for cls in LINEAR}
        # gate_proj at batch 16: 16 GEMMs reading 16 × 2048·8192·2 B of weights in ~183 µs, under the roof
        assert 150e-6 < time["gate_proj"] < 200e-6
        assert by_class(step, "bytes")["gate_proj"] / time["gate_proj"] < HBM_ROOF


def test_decode_matmul_flops_match_the_hand_count(steps):
    # 16 × 2·16·2048·(2048+512+512+2048 + 3·8192) + 2·16·2048·128,256 + 64 (rotary) = 39,543,898,176
    hand = 16 * 2 * 16 * 2048 * (2048 + 512 + 512 + 2048 + 3 * 8192) + 2 * 16 * 2048 * 128_256 + 64
    assert hand == 39_543_898_176
    assert [sum(op.matmul_flops for op in s.ops) for s in steps[1:]] == [hand, hand]


def test_kv_append_counts_bf16_bytes_and_stays_under_the_roof(steps):
    # 32 cats × (read + write) × tokens × 16·8·64·2 B: 2,049 tokens at decode::0, 2,050 at decode::1
    for step, tokens in zip(steps[1:], (2049, 2050)):
        moved = by_class(step, "bytes")["kv_append"]
        assert moved == 32 * 2 * tokens * 16 * 8 * 64 * 2
        assert 3.5e12 < moved / by_class(step, "time_s")["kv_append"] < HBM_ROOF
