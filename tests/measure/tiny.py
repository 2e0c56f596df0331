"""A tiny random-weight Llama config and seeded roofs, shared by the measure, api and cli tests."""

from __future__ import annotations

import json
from pathlib import Path

from rooftop.core.roofs import ComputeRoof, MemoryRoof, RoofKind, Roofs

TINY = {
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "vocab_size": 256,
    "max_position_embeddings": 128,
    "tie_word_embeddings": False,
}
# two small sweep shapes so a calibrating profile of the tiny model takes well under a second more
TINY_SHAPES = ((2, 16), (4, 32))

ROOFS = Roofs(
    "cpu:test",
    (ComputeRoof("fp32", 90e9, RoofKind.MEASURED, "seeded by the test"),),
    (MemoryRoof("hbm", 20e9, RoofKind.MEASURED, "seeded by the test"),),
    capacity_bytes=8 * 2**30,
    identity={"spread": {"compute.fp32": 0.05, "memory.hbm": 0.05}},
)


def seed(tmp: Path) -> Path:
    """Seed the roof cache under ``tmp/cache`` (ROOFTOP_CACHE_DIR must point there) and write tiny/config.json."""
    from rooftop.measure import cache

    cache.save_roofs(ROOFS, "cpu", 1)
    (tmp / "tiny").mkdir(exist_ok=True)
    (tmp / "tiny" / "config.json").write_text(json.dumps(TINY))
    return tmp / "tiny"
