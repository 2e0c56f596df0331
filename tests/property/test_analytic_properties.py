"""Relations that must hold for every shape (Hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from rooftop.analytic.decompose import decompose
from rooftop.analytic.engine import evaluate
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset
from rooftop.models.spec import ModelSpec

ROOFS = get_roofs("h100-sxm")
PRESETS = ["llama-3.1-8b", "llama-2-7b", "mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3", "gpt2", "gemma-2-9b"]


@st.composite
def specs(draw: st.DrawFn) -> ModelSpec:
    kv_heads = draw(st.sampled_from([1, 2, 4, 8]))
    group = draw(st.sampled_from([1, 2, 4, 8]))
    return ModelSpec(
        name="h",
        layers=draw(st.integers(1, 8)),
        hidden=draw(st.sampled_from([64, 256, 1024])),
        heads=kv_heads * group,
        kv_heads=kv_heads,
        head_dim=draw(st.sampled_from([32, 64, 128])),
        ffn=draw(st.sampled_from([128, 512, 2048])),
        vocab=draw(st.integers(10, 5000)),
    )


phases = st.sampled_from([Phase.PREFILL, Phase.DECODE])
sizes = st.integers(1, 4096)


@settings(max_examples=60, deadline=None)
@given(preset=st.sampled_from(PRESETS), phase=phases, b=sizes, db=sizes, c=sizes, dc=sizes)
def test_flops_and_bytes_never_fall_with_batch_or_context(preset, phase, b, db, c, dc):
    spec = load_preset(preset)
    grid = Workload(
        phase=phase,
        batch=np.array([b, b + db, b, b]),
        prompt=np.array([c, c, c + dc, c]) + 1,
        context=np.array([c, c, c + dc, c]),
    )
    ev = evaluate(spec, grid, ROOFS)
    flops, nbytes, time = ev.total("flops"), ev.bytes, ev.time_s
    for more in (1, 2):
        assert flops[more] >= flops[0] and nbytes[more] >= nbytes[0] and time[more] >= time[0]


@settings(max_examples=50, deadline=None)
@given(spec=specs(), phase=phases, b=st.integers(1, 64), c=st.integers(1, 2048))
def test_gqa_divides_kv_bytes(spec, phase, b, c):
    mha = replace(spec, kv_heads=spec.heads)
    w = Workload(phase=phase, batch=b, prompt=c + 1, context=c)

    def kv(s: ModelSpec) -> float:
        return sum(float(op.cost.kv_read_bytes + op.cost.kv_write_bytes) * op.count for op in decompose(s, w))

    assert kv(mha) == pytest.approx(kv(spec) * spec.heads / spec.kv_heads, rel=1e-9)


@settings(max_examples=50, deadline=None)
@given(spec=specs(), phase=phases, b=st.integers(1, 64), c=st.integers(1, 2048), tp=st.sampled_from([2, 4, 8]))
def test_tp_shards_sum_to_the_whole(spec, phase, b, c, tp):
    if spec.heads % tp or spec.kv_heads % tp or spec.ffn % tp or spec.vocab % tp:
        return
    w = Workload(phase=phase, batch=b, prompt=c + 1, context=c)
    sharded = (
        "q_proj",
        "k_proj",
        "v_proj",
        "o_proj",
        "gate_proj",
        "up_proj",
        "down_proj",
        "lm_head",
        "attn_score",
        "attn_value",
        "softmax",
        "kv_append",
        "act",
    )
    whole = {op.name: op.cost for op in decompose(spec, w)}
    shard = {op.name: op.cost for op in decompose(spec, replace(w, tp=tp))}
    for name in sharded:
        assert float(shard[name].flops) * tp == pytest.approx(float(whole[name].flops), rel=1e-9), name
        assert float(shard[name].weight_bytes) * tp == pytest.approx(float(whole[name].weight_bytes), rel=1e-9)
        assert float(shard[name].kv_read_bytes + shard[name].kv_write_bytes) * tp == pytest.approx(
            float(whole[name].kv_read_bytes + whole[name].kv_write_bytes), rel=1e-9
        )


@settings(max_examples=30, deadline=None)
@given(spec=specs(), b=st.integers(1, 64), q=st.integers(1, 512), c=st.integers(0, 512))
def test_flash_and_materialized_attention_have_equal_flops(spec, b, q, c):
    w = Workload(phase=Phase.PREFILL, batch=b, prompt=q + c, cached_prefix=c)
    flash = {op.name: op.cost for op in decompose(spec, w)}
    mat = {op.name: op.cost for op in decompose(spec, replace(w, attention="materialized"))}
    for name in ("attn_score", "softmax", "attn_value"):
        assert float(flash[name].flops) == float(mat[name].flops)
        assert float(mat[name].bytes) >= float(flash[name].bytes)


@settings(max_examples=30, deadline=None)
@given(
    preset=st.sampled_from(["llama-2-70b", "llama-3.1-8b", "qwen2.5-72b"]),
    wdtype=st.sampled_from([("bf16", 2.0), ("fp8", 1.0), ("int8", 1.0)]),
)
def test_decode_batch1_gemm_intensity_is_2_over_bytes_per_weight(preset, wdtype):
    name, per_weight = wdtype
    ops = decompose(load_preset(preset), Workload(phase=Phase.DECODE, batch=1, context=1, weight_dtype=name))
    for op in ops:
        if op.kind == "gemm":
            expected = 2.0 / (per_weight + (2.0 / 128 if name == "int8" else 0.0))
            assert float(op.cost.flops / op.cost.bytes) == pytest.approx(expected, rel=0.02)


@settings(max_examples=200, deadline=None)
@given(
    new=st.integers(1, 4096),
    past=st.integers(0, 1 << 17),
    bound=st.integers(1, 1 << 14),
    causal=st.booleans(),
)
def test_windows_and_chunks_never_add_pairs(new, past, bound, causal):
    from rooftop.analytic.ops.attention import keys_read, pairs

    full = float(pairs(new, past, causal))
    for kw in ({"window": bound}, {"chunk": bound}):
        assert 0 < float(pairs(new, past, causal, **kw)) <= full
        assert new <= float(keys_read(new, past, **kw)) <= past + new
    # a window that reaches back past the first token changes nothing
    assert float(pairs(new, past, causal, window=past + new)) == full
    # causal pairs of a chunk, summed position by position, never exceed chunk x rows
    assert float(pairs(new, past, True, chunk=bound)) <= new * bound


@settings(max_examples=50, deadline=None)
@given(spec=specs(), context=st.integers(1, 1 << 16), window=st.integers(1, 1 << 12))
def test_sliding_layers_keep_at_most_the_window(spec, context, window):
    mixers = tuple("sliding" if i % 2 else "full" for i in range(spec.layers))
    windowed = replace(spec, mixers=mixers, window=window)
    assert windowed.kv_elements_per_sequence(context) <= spec.kv_elements_per_sequence(context)
    sliding = windowed.count_mixers("sliding")
    expected = (spec.layers - sliding) * context + sliding * min(context, window)
    assert windowed.kv_elements_per_sequence(context) == expected * spec.kv_elements_per_layer_token
