import pytest

from rooftop.core.roofs import ComputeRoof, MemoryRoof, Roofs
from rooftop.models.spec import ModelSpec


@pytest.fixture
def tiny() -> ModelSpec:
    # 2 layers, hidden 8, 2 query heads, 1 KV head of 4 dims, SwiGLU 16 wide, vocab 10.
    # Matmul params per layer: q 8x8=64, k 8x4=32, v 32, o 64, gate/up/down 8x16=128 each -> 576; lm_head 80.
    return ModelSpec(name="tiny", layers=2, hidden=8, heads=2, kv_heads=1, head_dim=4, ffn=16, vocab=10)


@pytest.fixture
def toy_roofs() -> Roofs:
    # tensor 1000 FLOP/s, vector 100 FLOP/s, HBM 10 B/s, link 1 B/s, 1 GiB: ridge 100 FLOP/B
    return Roofs(
        name="toy",
        compute=(ComputeRoof("bf16", 1000.0), ComputeRoof("fp32", 100.0)),
        memory=(MemoryRoof("hbm", 10.0), MemoryRoof("link", 1.0)),
        capacity_bytes=2.0**30,
    )
