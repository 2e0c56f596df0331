"""Hybrid models: gated DeltaNet and Mamba layers get recurrent-state operators, not a KV cache."""

import numpy as np

from rooftop.analytic import hybrid
from rooftop.analytic.decompose import _Step, decompose
from rooftop.analytic.memory import kv_bytes_per_sequence
from rooftop.analytic.ops.recurrent import recurrent_state
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.models.hf_config import load_config_file
from tests.conftest import REPO

CONFIGS = REPO / "tests" / "data" / "configs"


def test_recurrent_state_formula():
    c = recurrent_state(
        tokens=4, batch=2, flops_per_token=10.0, state_elements=100, state_bytes=2, in_width=3, out_width=5, act_bytes=2
    )
    assert float(c.flops) == float(c.model_flops) == 40  # 4 tokens x 10
    assert float(c.kv_read_bytes) == float(c.kv_write_bytes) == 400  # 2 sequences x 100 x 2 B, once per step
    assert (float(c.act_in_bytes), float(c.act_out_bytes)) == (24, 40)


def test_qwen3_next_decode_operators_and_constant_state():
    spec = load_config_file(CONFIGS / "qwen3-next")  # 36 gated DeltaNet + 12 attention layers
    ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=1, context=32_768))}
    assert ops["gdn_recurrence"].count == 36 and ops["attn_score"].count == 12
    # state per layer: 32 value heads x 128 x 128 + conv 8192 x 3 = 548,864 elements x 2 B
    assert float(ops["gdn_recurrence"].cost.kv_read_bytes) == 548_864 * 2
    assert float(ops["gdn_recurrence"].cost.flops) == 6 * 32 * 128 * 128  # delta rule per token
    short = float(kv_bytes_per_sequence(spec, Workload(phase=Phase.DECODE, context=1024)))
    long = float(kv_bytes_per_sequence(spec, Workload(phase=Phase.DECODE, context=32_768)))
    # only the 12 attention layers grow (2 KV heads x 256 x 2 x 2 B per token); the state is constant
    assert long - short == 12 * 2 * 2 * 256 * 2 * (32_769 - 1025)
    assert short == 12 * 2 * 2 * 256 * 2 * 1025 + 36 * 548_864 * 2


def test_nemotron_h_mamba_operators():
    spec = load_config_file(CONFIGS / "nemotron-h")  # 54 Mamba-2, 10 attention, 54 MLP-only layers
    ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=1, context=8))}
    assert ops["ssm_in_proj"].count == ops["ssm_update"].count == 54
    assert ops["attn_score"].count == 10 and ops["up_proj"].count == 54 and "gate_proj" not in ops
    assert ops["ssm_update"].cost.unit == "vector" and ops["ssm_read"].cost.unit == "tensor"
    # Mamba-2: d_inner 16,384 x d_state 256 per token read (C·h): 2 x 16,384 x 256
    np.testing.assert_allclose(ops["ssm_read"].cost.flops, 2 * 16_384 * 256)


def test_jamba_mamba1_has_x_and_dt_projections():
    spec = load_config_file(CONFIGS / "jamba")  # 3 Mamba-1 layers, 1 attention layer
    ops = {op.name: op for op in hybrid.state_space(_Step(spec, Workload(phase=Phase.DECODE, batch=1, context=8)))}
    assert list(ops) == ["ssm_in_proj", "ssm_x_proj", "ssm_dt_proj", "ssm_update", "ssm_read", "ssm_out_proj"]
    assert ops["ssm_x_proj"].count == 3
    np.testing.assert_allclose(ops["ssm_x_proj"].cost.flops, 2 * 4096 * (256 + 2 * 4))  # d_inner -> dt_rank + B + C
    assert hybrid.linear_attention(_Step(spec, Workload(phase=Phase.DECODE))) == []


def test_falcon_h1_parallel_layers_get_attention_and_mamba_operators():
    from rooftop.models.hf_config import spec_from_config

    config = {
        "model_type": "falcon_h1",
        "hidden_size": 64,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 128,
        "vocab_size": 100,
        "mamba_n_heads": 8,
        "mamba_d_head": 8,
        "mamba_d_ssm": 64,
        "mamba_d_state": 16,
    }
    spec = spec_from_config(config, "h1")
    ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=1, context=100))}
    assert ops["attn_score"].count == ops["ssm_update"].count == ops["gate_proj"].count == 3
    assert "ssm_norm" not in ops  # mamba_rms_norm false
    # KV of 3 layers x 101 tokens x 2 x 2 KV heads x 16 x 2 B, plus the state 3 x (64 x 16 + 96 x 3) x 2 B
    w = Workload(phase=Phase.DECODE, context=100)
    assert float(kv_bytes_per_sequence(spec, w)) == 3 * 101 * 2 * 2 * 16 * 2 + 3 * (64 * 16 + 96 * 3) * 2


def test_qwen3_next_long_context_kv_is_a_quarter_of_an_all_attention_model():
    from msgspec.structs import replace

    spec = load_config_file(CONFIGS / "qwen3-next")
    w = Workload(phase=Phase.DECODE, context=131_072)  # 131,073 tokens after the step
    hybrid = float(kv_bytes_per_sequence(spec, w))
    dense = float(kv_bytes_per_sequence(replace(spec, mixers=()), w))
    # 12 attention layers x 131,073 x 2,048 B + 36 x 548,864 x 2 B of state, against 48 attention layers
    assert hybrid == 12 * 131_073 * 2048 + 36 * 548_864 * 2
    assert dense == 48 * 131_073 * 2048
    assert round(dense / hybrid, 2) == 3.95


def test_olmo_hybrid_gated_deltanet_and_olmo3_attention_layers():
    import json

    from rooftop.models.hf_config import spec_from_config

    stored = json.loads((CONFIGS.parent / "default_configs.json").read_text())["counted"]["olmo_hybrid"]
    spec = spec_from_config(stored["config"], "olmo-hybrid")  # transformers' default: 24 GDN + 8 attention layers
    assert spec.param_count() == stored["params"] and spec.qk_norm_full
    ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=1, context=1024))}
    assert ops["gdn_in_proj"].count == 24 and ops["attn_score"].count == 8
    # q, k (30 heads x 96), v and its output gate (30 x 192), a and b (one per value head)
    assert ops["gdn_in_proj"].cost.flops == 2 * 3840 * (2 * 2880 + 2 * 5760 + 2 * 30)
    # state per layer: 30 value heads x 96 x 192 + conv (2 x 2880 + 5760) x 3
    assert spec.state_elements_per_sequence == 24 * (30 * 96 * 192 + 11_520 * 3)


def test_kimi_linear_kda_layers_low_rank_gates_and_mla_layers():
    import json

    from rooftop.models.hf_config import spec_from_config

    stored = json.loads((CONFIGS.parent / "default_configs.json").read_text())["counted"]["kimi_linear"]
    spec = spec_from_config(stored["config"], "kimi-linear")  # 21 KDA layers, 6 MLA layers (the 5th, 9th...)
    assert spec.param_count() == stored["params"] and spec.linear is not None and spec.linear.kind == "kda"
    ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=1, context=1024))}
    assert ops["kda_in_proj"].count == 21 and ops["attn_score"].count == 6 and "gdn_in_proj" not in ops
    # q, k, v (32 heads x 128), b (one per head), and the low halves of both gates (hidden -> 128)
    assert ops["kda_in_proj"].cost.flops == 2 * 2304 * (3 * 4096 + 32 + 2 * 128)
    assert ops["kda_gate_up"].cost.flops == 2 * 128 * 2 * 4096  # both gates: 128 -> 4096 channels
    # state per layer: 32 heads x 128 x 128 + conv (3 x 4096) x 3; MLA caches its latent and rope key
    assert spec.state_elements_per_sequence == 21 * (32 * 128 * 128 + 12_288 * 3)
    assert spec.kv_elements_per_token == 6 * (512 + 64)


def test_ling_hybrid_full_rank_kda_gates_and_a_gate_per_head_on_mla():
    import json

    from rooftop.models.hf_config import spec_from_config

    stored = json.loads((CONFIGS.parent / "default_configs.json").read_text())["counted"]["bailing_hybrid"]
    spec = spec_from_config(stored["config"], "ling-hybrid")  # every 6th layer attention: 35 KDA + 7 MLA
    assert spec.param_count() == stored["params"] and spec.head_gate
    ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, batch=1, context=1024))}
    assert ops["kda_in_proj"].count == 35 and "kda_gate_up" not in ops
    assert ops["kda_in_proj"].cost.flops == 2 * 2560 * (3 * 4096 + 32 + 2 * 4096)  # full-rank gates
    assert ops["head_gate"].count == 7 and ops["head_gate"].cost.flops == 2 * 2560 * 32


def test_kda_layouts_without_layer_types_follow_transformers():
    import json

    from rooftop.models.hf_config import spec_from_config

    stored = json.loads((CONFIGS.parent / "default_configs.json").read_text())["counted"]
    drop = ("layer_types", "mlp_layer_types", "linear_num_heads", "linear_head_dim", "linear_conv_kernel_dim")
    kimi = {k: v for k, v in stored["kimi_linear"]["config"].items() if k not in drop}
    full = [4, 8, 12, 16, 20, 24, 27]  # the checkpoint's 1-indexed lists
    kimi["linear_attn_config"] = {
        "full_attn_layers": full,
        "head_dim": 128,
        "num_heads": 32,
        "short_conv_kernel_size": 4,
    }
    spec = spec_from_config(kimi, "kimi-linear")
    assert [i for i in range(27) if spec.mixer(i) == "full"] == [i - 1 for i in full]
    assert spec.param_count() == 49_122_675_072  # transformers 5.24.0 on this config
    ling = {k: v for k, v in stored["bailing_hybrid"]["config"].items() if k not in drop} | {"head_dim": 128}
    assert spec_from_config(ling, "ling").param_count() == stored["bailing_hybrid"]["params"]  # layer_group_size 6
