import pytest

from rooftop.analytic.ops.attention import attn_score, attn_value, kv_append, pairs, softmax

COMMON = {"heads": 32.0, "act_bytes": 2.0}


def test_pairs_causal_and_full():
    assert float(pairs(1, 100, causal=True)) == 101  # decode: c cached + itself
    assert float(pairs(1, 100, causal=False)) == 101
    assert float(pairs(4, 0, causal=True)) == 10  # 4*5/2
    assert float(pairs(4, 0, causal=False)) == 16  # 4*4
    assert float(pairs(4, 6, causal=True)) == 34  # 4*6 + 10


def test_decode_score_reads_the_kv_cache():
    # llama-3.1-8b layer: batch 1, context 2048 cached + 1 new, 32 heads, 8 KV heads, d=128, bf16
    c = attn_score(
        batch=1, new=1, past=2048, kv_heads=8.0, qk_dim=128, kv_bytes=2.0, impl="flash", causal=True, **COMMON
    )
    assert float(c.flops) == 2 * 32 * 2049 * 128  # 16,785,408
    assert float(c.kv_read_bytes) == 8 * 2049 * 128 * 2  # K only: 4,196,352 B
    assert float(c.act_in_bytes) == 32 * 128 * 2  # Q
    assert float(c.act_out_bytes) == 0  # flash: scores stay in SRAM


def test_materialized_writes_scores_and_softmax_round_trips():
    c = attn_score(
        batch=2, new=4, past=0, kv_heads=32.0, qk_dim=64, kv_bytes=2.0, impl="materialized", causal=True, **COMMON
    )
    assert float(c.act_out_bytes) == 2 * 32 * 4 * 4 * 2  # full [b, h, 4, 4] matrix in bf16 = 2048 B
    s = softmax(batch=2, new=4, past=0, impl="materialized", causal=True, **COMMON)
    assert float(s.flops) == 5 * 2 * 32 * 10  # 5 per causal element
    assert float(s.act_in_bytes) == float(s.act_out_bytes) == 2048
    assert float(softmax(batch=2, new=4, past=0, impl="flash", causal=True, **COMMON).bytes) == 0


def test_causal_convention_changes_flops_not_model_flops():
    full = attn_value(
        batch=1, new=8, past=0, kv_heads=8.0, v_dim=128, kv_bytes=2.0, impl="flash", causal=False, **COMMON
    )
    causal = attn_value(
        batch=1, new=8, past=0, kv_heads=8.0, v_dim=128, kv_bytes=2.0, impl="flash", causal=True, **COMMON
    )
    assert float(full.flops) == 2 * 32 * 64 * 128  # 8*8 pairs
    assert float(causal.flops) == 2 * 32 * 36 * 128  # 8*9/2 pairs
    assert float(full.model_flops) == float(causal.model_flops)


def test_flash_and_materialized_have_equal_flops():
    args = {"batch": 3, "new": 17, "past": 5, "kv_heads": 4.0, "qk_dim": 64, "kv_bytes": 1.0, "causal": True}
    a = attn_score(impl="flash", **args, **COMMON)
    b = attn_score(impl="materialized", **args, **COMMON)
    assert float(a.flops) == float(b.flops)
    assert float(b.bytes) > float(a.bytes)


def test_kv_append_writes_in_kv_dtype():
    c = kv_append(tokens=3, elements_per_token=2 * 8 * 128, act_bytes=2.0, kv_bytes=1.0)  # fp8 KV
    assert float(c.kv_write_bytes) == 3 * 2048  # 6144 B
    assert float(c.act_in_bytes) == 3 * 2048 * 2
    assert float(c.flops) == 0


@pytest.mark.parametrize("impl", ["flash", "materialized"])
def test_mla_value_does_not_reread_the_latent(impl):
    c = attn_value(
        batch=1, new=1, past=10, kv_heads=1.0, v_dim=512, kv_bytes=2.0, impl=impl, causal=True, reads_v=False, **COMMON
    )
    assert float(c.kv_read_bytes) == 0
