"""Sliding-window and chunked attention: pairs, keys read, and the KV a sequence keeps."""

import numpy as np
import pytest

from rooftop.analytic.memory import budget, kv_bytes_per_sequence
from rooftop.analytic.ops.attention import keys_read, pairs
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.hf_config import load_config_file
from tests.conftest import REPO

CONFIGS = REPO / "tests" / "data" / "configs"


def test_window_pairs_by_hand():
    # decode at context 32,767 with window 4096: the query sees 4096 keys, not 32,768
    assert float(pairs(1, 32_767, True, window=4096)) == 4096
    # prefill of 6 tokens after 2 cached, window 4: rows see min(2 + j, 4) = 3, 4, 4, 4, 4, 4 -> 23
    assert float(pairs(6, 2, True, window=4)) == 23
    assert float(keys_read(6, 2, window=4)) == 8  # min(2 + 6, 4 - 1 + 6): every key is still in reach
    assert float(keys_read(6, 10, window=4)) == 9  # min(16, 9): the 3 cached keys in the window + 6 new
    # inside the window nothing changes: 3 tokens after 1 cached -> 1·3 + 3·4/2 = 9
    assert float(pairs(3, 1, True, window=100)) == float(pairs(3, 1, True)) == 9


def test_chunk_pairs_by_hand():
    # chunk 8192, decode at context 10,000: position 10,000 is 1808 into its chunk -> 1809 keys
    assert float(pairs(1, 10_000, True, chunk=8192)) == 1809
    assert float(keys_read(1, 10_000, chunk=8192)) == 1809
    # prefill of 6 from 0 with chunk 4: positions 0..5 see 1, 2, 3, 4, 1, 2 -> 13
    assert float(pairs(6, 0, True, chunk=4)) == 13
    # without causal, the rectangle of each row against the keys read: 1 decode row, 1809 keys
    assert float(pairs(1, 10_000, False, chunk=8192)) == 1809


def _decode(context):
    return Workload(phase=Phase.DECODE, batch=1, context=context)


def test_gpt_oss_20b_kv_at_32k_is_a_per_layer_count():
    spec = load_config_file(CONFIGS / "gpt-oss-20b")
    w = _decode(32_768)  # 32,769 tokens after the step
    per_layer_token = 2 * 8 * 64 * 2  # K and V x 8 KV heads x 64 x 2 B = 2048 B
    expected = sum(per_layer_token * (min(32_769, 128) if spec.mixer(i) == "sliding" else 32_769) for i in range(24))
    assert expected == 12 * 32_769 * 2048 + 12 * 128 * 2048 == 808_476_672
    assert float(kv_bytes_per_sequence(spec, w)) == expected
    # counting every layer at full context would be 1.99x
    assert 24 * 32_769 * 2048 / expected == pytest.approx(1.9922, abs=1e-4)
    # h100-sxm: (0.9 x 80 GiB - 41,829,514,368 B of weights) / (808,476,672 KV + 57,600 activations
    # + 804,352 fp32 logits) = 43.8 -> 43 sequences (22 when every layer kept 32k)
    assert int(budget(spec, w, get_roofs("h100-sxm").capacity_bytes).max_batch) == 43


def test_gemma3_kv_at_32k():
    spec = load_config_file(CONFIGS / "gemma-3")  # 34 layers, every 6th global, window 1024
    assert (spec.count_mixers("full"), spec.count_mixers("sliding"), spec.window) == (5, 29, 1024)
    per_layer_token = 2 * 4 * 256 * 2  # 4 KV heads of 256
    expected = (5 * 32_769 + 29 * 1024) * per_layer_token
    assert float(kv_bytes_per_sequence(spec, _decode(32_768))) == expected == 792_743_936
    assert 34 * 32_769 * per_layer_token / expected == pytest.approx(5.7566, abs=1e-4)


def test_llama4_chunked_layers_keep_one_chunk():
    spec = load_config_file(CONFIGS / "llama-4-scout")  # 3 of 4 layers chunked (8192), every 4th global
    assert spec.kv_layer_groups() == {0: 12, 8192: 36}
    assert spec.kv_elements_per_sequence(32_769) == (12 * 32_769 + 36 * 8192) * 2 * 8 * 128


def test_decode_attention_reads_only_the_window():
    from rooftop.analytic.decompose import decompose

    spec = load_config_file(CONFIGS / "gpt-oss-20b")
    ops = {op.name: op for op in decompose(spec, _decode(32_768))}
    # full layers read 32,769 keys, sliding layers 128, each K: 8 heads x 64 x 2 B
    assert float(ops["attn_score"].cost.kv_read_bytes) == 32_769 * 8 * 64 * 2
    assert float(ops["attn_score_swa"].cost.kv_read_bytes) == 128 * 8 * 64 * 2
    assert ops["attn_score"].count == ops["attn_score_swa"].count == 12
    np.testing.assert_allclose(ops["attn_score_swa"].cost.flops, 2 * 64 * 128 * 64)  # 64 heads x 128 pairs x 64
