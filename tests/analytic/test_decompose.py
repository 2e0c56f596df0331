import pytest

from rooftop.analytic.decompose import decompose
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError
from rooftop.models.presets import load_preset


def names(ops):
    return [op.name for op in ops]


def test_llama_decode_operators(tiny):
    ops = decompose(tiny, Workload(phase=Phase.DECODE, batch=1, context=3))
    assert names(ops) == [
        "embed",
        "attn_norm",
        "q_proj",
        "k_proj",
        "v_proj",
        "kv_append",
        "attn_score",
        "softmax",
        "attn_value",
        "o_proj",
        "ffn_norm",
        "gate_proj",
        "up_proj",
        "act",
        "down_proj",
        "final_norm",
        "lm_head",
    ]
    by = {op.name: op for op in ops}
    assert by["q_proj"].count == 2 and by["lm_head"].count == 1
    # decode at batch 1 = 2 FLOPs per matmul weight: 2 x (2 x 576 + 80) = 2464
    gemm_flops = sum(float(op.cost.flops) * op.count for op in ops if op.kind == "gemm")
    assert gemm_flops == 2 * (2 * 576 + 80)
    # KV read per layer: K and V, 1 head x 4 dims x (3 + 1) tokens x 2 B = 32 B each
    assert float(by["attn_score"].cost.kv_read_bytes) == 32
    assert float(by["attn_value"].cost.kv_read_bytes) == 32
    assert float(by["kv_append"].cost.kv_write_bytes) == 2 * 4 * 2  # one token's K and V


def test_prefill_lm_head_runs_on_last_position_only(tiny):
    ops = {op.name: op for op in decompose(tiny, Workload(phase=Phase.PREFILL, batch=3, prompt=5))}
    assert float(ops["lm_head"].cost.flops) == 2 * 3 * 8 * 10  # 3 sequences, not 15 tokens
    assert float(ops["q_proj"].cost.flops) == 2 * 15 * 8 * 8


def test_tp_shards_and_adds_allreduce(tiny):
    ops = {op.name: op for op in decompose(tiny, Workload(phase=Phase.DECODE, batch=1, context=3, tp=2))}
    assert float(ops["q_proj"].cost.flops) == 2 * 8 * 4  # n = 8 / 2
    assert float(ops["k_proj"].cost.flops) == 2 * 8 * 4  # 1 KV head kept on each GPU
    assert "tp_allreduce_attn" in ops and "tp_allreduce_mlp" in ops
    assert float(ops["tp_allreduce_mlp"].cost.link_bytes) == 2 * 0.5 * 8 * 2  # 2*(1/2)*8 elems*2 B


def test_tp_must_divide_heads(tiny):
    with pytest.raises(WorkloadError, match="tp=3"):
        decompose(tiny, Workload(phase=Phase.DECODE, tp=3))


def test_moe_operators_and_dense_layers():
    spec = load_preset("deepseek-v3")
    ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=1, context=10))}
    assert ops["gate_proj"].count == 3  # first_k_dense_replace = 3
    assert ops["experts_gate_up"].count == 58
    assert ops["shared_gate_proj"].count == 58
    assert {"q_a_proj", "q_b_proj", "kv_a_proj", "kv_b_proj"} <= set(ops)
    # MLA decode reads the latent once: (512 + 64) x 11 tokens x 2 B per layer
    assert float(ops["attn_score"].cost.kv_read_bytes) == 576 * 11 * 2
    assert float(ops["kv_append"].cost.kv_write_bytes) == 576 * 2


def test_decode_flops_are_about_2_active_params():
    # Mixtral at batch 1: matmul FLOPs ≈ 2 x active params (12.9e9) minus the gathered embedding.
    spec = load_preset("mixtral-8x7b")
    ops = decompose(spec, Workload(phase=Phase.DECODE, batch=1, context=1))
    matmul = sum(float(op.cost.flops) * op.count for op in ops if op.kind in ("gemm", "grouped_gemm"))
    expected = 2 * (spec.param_count(active=True) - spec.embedding_params - spec.norm_params * (2 * 32 + 1))
    assert matmul == pytest.approx(expected, rel=1e-6)


def test_gpt2_has_learned_positions_and_plain_mlp():
    ops = {
        op.name: op
        for op in decompose(
            load_preset("gpt2"),
            Workload(phase=Phase.DECODE, batch=1, context=5, weight_dtype="fp32", act_dtype="fp32", kv_dtype="fp32"),
        )
    }
    assert "gate_proj" not in ops
    assert float(ops["embed"].cost.weight_bytes) == 2 * 768 * 4  # token + position row, fp32


def test_gemma2_extra_norms_and_qwen3_qk_norm():
    g = {op.name: op for op in decompose(load_preset("gemma-2-9b"), Workload(phase=Phase.DECODE))}
    assert g["extra_norms"].count == 2 * 42
    q = {op.name for op in decompose(load_preset("qwen3-30b-a3b"), Workload(phase=Phase.DECODE))}
    assert "qk_norm" in q


def test_deepseek_v32_sparse_attention_at_32k():
    # DeepSeek-V3.2 decode at context 32,768, batch 1, bf16 (real config, tests/data/configs):
    # the indexer scores every cached token, 2 x 64 heads x 128 x 32,769 = 536,887,296 FLOPs per
    # layer, reading 32,769 index keys x 128 x 2 B = 8,388,864 B; MLA (absorbed: 576-wide latent,
    # 128 heads) attends to the top 2,048 only: 2 x 128 x 2,048 x 576 = 301,989,888 FLOPs, reading
    # 2,048 x 576 x 2 B = 2,359,296 B, where DeepSeek-V3 reads all 32,769: 37,749,888 B.
    from rooftop.models.hf_config import load_config_file
    from tests.conftest import data_path

    w = Workload(phase=Phase.DECODE, batch=1, context=32768)
    sparse = {op.name: op for op in decompose(load_config_file(data_path("configs", "deepseek-v3.2")), w)}
    dense = {op.name: op for op in decompose(load_config_file(data_path("configs", "deepseek-v3")), w)}
    score, index = sparse["attn_score"].cost, sparse["index_score"].cost
    assert float(index.flops) == 536_887_296 and float(index.kv_read_bytes) == 8_388_864
    assert float(score.flops) == 301_989_888 and float(score.kv_read_bytes) == 2_359_296
    assert float(dense["attn_score"].cost.kv_read_bytes) == 37_749_888
    assert sparse["index_q_proj"].count == 61 and float(sparse["index_q_proj"].cost.weight_bytes) == 1536 * 8192 * 2
    # the cache keeps every token: latent 576 + index key 128 per layer, 61 layers = 42,944 elements
    assert load_config_file(data_path("configs", "deepseek-v3.2")).kv_elements_per_token == 61 * (576 + 128)


def test_layer_kinds_with_their_own_shape_get_their_own_projections():
    from rooftop.models.mixers import AttentionShape
    from rooftop.models.spec import ModelSpec

    spec = ModelSpec(
        name="x",
        layers=4,
        hidden=64,
        heads=4,
        kv_heads=2,
        head_dim=16,
        ffn=128,
        vocab=10,
        mixers=("sliding", "full", "sliding", "full"),
        window=8,
        attention_shapes=(("full", AttentionShape(4, 1, 32, k_eq_v=True)),),
        kv_shared_layers=1,
    )
    ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=1, context=10))}
    assert [ops[n].count for n in ("q_proj_swa", "k_proj_swa", "v_proj_swa", "kv_append_swa", "o_proj_swa")] == [2] * 5
    assert [ops[n].count for n in ("q_proj", "k_proj", "kv_append", "attn_score", "o_proj")] == [2, 1, 1, 2, 2]
    assert "v_proj" not in ops  # k_eq_v
    assert (
        float(ops["q_proj"].cost.weight_bytes) == 64 * 128 * 2
        and float(ops["o_proj"].cost.weight_bytes) == 128 * 64 * 2
    )
    # the full layers read 11 keys and 11 values of 32 (one KV head); sliding ones 8 of 16 (two heads)
    assert float(ops["attn_score"].cost.kv_read_bytes) == 11 * 32 * 2
    assert float(ops["attn_value_swa"].cost.kv_read_bytes) == 2 * 8 * 16 * 2


def test_gemma4_layer_kinds_have_their_own_projections():
    # Gemma 4 26B-A4B decode at tp 2, context 4,095 (4,096 keys after the append), bf16
    from rooftop.models.hf_config import load_config_file
    from tests.conftest import data_path

    spec = load_config_file(data_path("configs", "gemma-4-moe"))
    ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=1, context=4095, tp=2))}
    # 25 sliding layers: q 2816 -> 16 x 256 / 2 GPUs, k and v 2816 -> 8 x 256 / 2 each
    assert [ops[f"{p}_proj_swa"].count for p in "qkvo"] == [25] * 4
    assert float(ops["k_proj_swa"].cost.weight_bytes) == 2816 * 1024 * 2
    # 5 full layers: q 2816 -> 16 x 512 / 2, k 2816 -> 2 x 512 / 2; no v_proj (k_eq_v)
    assert "v_proj" not in ops and ops["k_proj"].count == 5 and ops["o_proj"].count == 5
    assert float(ops["q_proj"].cost.weight_bytes) == 2816 * 4096 * 2
    # each GPU appends keys and values: full 1 KV head x (512 + 512), sliding 4 x (256 + 256), x 2 B
    assert float(ops["kv_append"].cost.kv_write_bytes) == 1024 * 2
    assert float(ops["kv_append_swa"].cost.kv_write_bytes) == 2048 * 2
    # full layers read every key, 1 head x 4,096 x 512 x 2 B; sliding ones the window, 4 x 1,024 x 256 x 2 B
    assert float(ops["attn_score"].cost.kv_read_bytes) == 4096 * 512 * 2
    assert float(ops["attn_score_swa"].cost.kv_read_bytes) == 4 * 1024 * 256 * 2
    # the MoE block: the dense MLP and the experts side by side in every layer, 5 more norms each
    assert ops["gate_proj"].count == ops["experts_gate_up"].count == 30 and ops["extra_norms"].count == 150


def test_gemma4_kv_shared_layers_project_queries_only():
    from rooftop.models.hf_config import spec_from_config
    from tests.models.test_layouts import E2B_TEXT

    spec = spec_from_config(E2B_TEXT, "gemma-4-e2b")
    ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=1, context=100))}
    # 28 sliding layers (12 with their own K/V) and 7 full (3 with their own)
    assert (ops["q_proj_swa"].count, ops["k_proj_swa"].count, ops["kv_append_swa"].count) == (28, 12, 12)
    assert (ops["q_proj"].count, ops["v_proj"].count, ops["kv_append"].count) == (7, 3, 3)
    assert (ops["qk_norm_swa"].count, ops["q_norm_swa"].count, ops["attn_score_swa"].count) == (12, 16, 28)
    # the 20 shared layers' MLPs are twice as wide
    assert (ops["gate_proj"].count, ops["wide_gate_proj"].count) == (15, 20)
    assert float(ops["wide_gate_proj"].cost.weight_bytes) == 1536 * 12288 * 2
    # per-layer inputs: one gather of 35 x 256 features and one projection, then a gate and a
    # projection back in each layer
    assert float(ops["embed_per_layer"].cost.weight_bytes) == 35 * 256 * 2
    assert ops["per_layer_model_proj"].count == 1 and float(ops["per_layer_model_proj"].cost.weight_bytes) == (
        1536 * 8960 * 2
    )
    assert ops["per_layer_gate"].count == ops["per_layer_proj"].count == 35
