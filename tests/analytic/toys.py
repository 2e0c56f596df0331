"""Small specs and roofs for the serving-technique tests (numbers small enough to do by hand)."""

from __future__ import annotations

from rooftop.core.roofs import ComputeRoof, MemoryRoof, Roofs
from rooftop.models.spec import ModelSpec, MoE


def tiny() -> ModelSpec:
    # 2 layers, hidden 8, 2 query heads, 1 KV head of 4 dims, SwiGLU 16 wide, vocab 10.
    return ModelSpec(name="tiny", layers=2, hidden=8, heads=2, kv_heads=1, head_dim=4, ffn=16, vocab=10)


def tiny_moe() -> ModelSpec:
    # tiny with 4 routed experts of width 8, top-2, in both layers
    return ModelSpec(
        name="tiny-moe",
        layers=2,
        hidden=8,
        heads=2,
        kv_heads=1,
        head_dim=4,
        ffn=16,
        vocab=10,
        moe=MoE(experts=4, top_k=2, expert_ffn=8),
    )


def toy_roofs() -> Roofs:
    # tensor 1000 FLOP/s, vector 100 FLOP/s, HBM 10 B/s, link 1 B/s, network 0.5 B/s, 1 GiB: ridge 100 FLOP/B
    return Roofs(
        name="toy",
        compute=(ComputeRoof("bf16", 1000.0), ComputeRoof("fp32", 100.0)),
        memory=(MemoryRoof("hbm", 10.0), MemoryRoof("link", 1.0), MemoryRoof("network", 0.5)),
        capacity_bytes=2.0**30,
    )
