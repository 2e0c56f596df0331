"""rooftop's matmul FLOPs equal torch's FlopCounterMode on eager, shrunken builds of real configs.

Needs torch and transformers (installed in CI; skipped where they are not). Each family is its
real config.json with the sizes shrunk (tests/analytic/flop_check.py); batch 2, a 12-token
prefill (rooftop ``causal=False``: eager attention computes the whole rectangle; logits of the
last position only), then one decode step on that cache. The windows and chunks of the shrunken
configs (64) exceed the 13 positions, as eager attention masks after computing.
"""

from __future__ import annotations

import pytest

from rooftop.core.points import Phase
from tests.analytic.flop_check import (
    DEFAULT_SHRINK,
    MATMUL_OPS,
    SMALL,
    rooftop_matmul_flops,
    shrunk_config,
    shrunk_default,
    torch_matmul_flops,
)

pytest.importorskip("torch")
pytest.importorskip("transformers")

BATCH, PROMPT = 2, 12
EXACT = [
    "llama-3",
    "gpt-oss-20b",
    "gemma-3",
    "jamba",
    "qwen3-moe",
    "qwen2.5",
    "falcon-40b",
    "gpt-neox",
    "phi-2",
    "mixtral",
    "gemma-4-moe",
    "mimo-v2",
    "laguna",
    "opt",
    "opt-350m",
    "mpt",
    "bloom",
    "gpt-bigcode",
    "gpt-j",
    "codegen",
    "falcon-7b",
    "phi-3",
    "phi-4",
    "stablelm",
    "starcoder2",
    "qwen3",
    "mistral-3",
    "exaone-4",
    "olmo-3",
    "minimax-m2",
]


@pytest.mark.parametrize("family", EXACT)
def test_prefill_and_decode_matmul_flops_equal_flop_counter(family):
    config = shrunk_config(family)
    prefill, decode = torch_matmul_flops(config, BATCH, PROMPT)
    assert rooftop_matmul_flops(config, Phase.PREFILL, BATCH, PROMPT) == prefill
    assert rooftop_matmul_flops(config, Phase.DECODE, BATCH, PROMPT, context=PROMPT) == decode


def test_deepseek_v3_mla_prefill():
    # prefill runs MLA in the expanded form in both (qk 16 + 8, v 16 per head); transformers' decode
    # also stays expanded, where rooftop models the absorbed form serving engines use: prefill only
    config = shrunk_config("deepseek-v3")
    prefill, _ = torch_matmul_flops(config, BATCH, PROMPT)
    assert rooftop_matmul_flops(config, Phase.PREFILL, BATCH, PROMPT) == prefill


def test_deepseek_v32_sparse_attention_prefill():
    # DSA: each of the 3 layers adds the indexer's projections (wq_b 48 -> 4 x 16, wk 64 -> 16,
    # weights_proj 64 -> 4) and its scores, 2 x 4 heads x 16 x (12 x 12 pairs) per sequence; top-k
    # 64 > 13 positions, so the MLA attention is the full rectangle, as before. transformers also
    # weights and sums the heads' scores as a matmul, 2 x 4 heads x 144 pairs per sequence and
    # layer, which rooftop leaves in the score (1/16 of it here, 1/128 at DeepSeek-V3.2's shape).
    config = shrunk_config("deepseek-v3.2")
    prefill, _ = torch_matmul_flops(config, BATCH, PROMPT)
    weighting = 3 * BATCH * 2 * 4 * PROMPT * PROMPT
    assert rooftop_matmul_flops(config, Phase.PREFILL, BATCH, PROMPT) + weighting == prefill
    dense = {k: v for k, v in config.items() if not k.startswith("index_")}
    indexer = 3 * BATCH * (PROMPT * 2 * (48 * 64 + 64 * 16 + 64 * 4) + 2 * 4 * 16 * PROMPT * PROMPT)
    dense_flops = rooftop_matmul_flops({**dense, "model_type": "deepseek_v3"}, Phase.PREFILL, BATCH, PROMPT)
    assert rooftop_matmul_flops(config, Phase.PREFILL, BATCH, PROMPT) - dense_flops == indexer


def test_llama4_shared_expert_and_interleaved_layers():
    # transformers' Llama4TextMoe runs every expert on every token (a bmm over all 4 experts, scores
    # zeroing the others), so its FLOPs equal rooftop's with top_k = experts; rooftop itself counts
    # the top-1 expert a serving engine runs, plus the shared expert and the dense layers
    config = shrunk_config("llama-4-scout")
    prefill, decode = torch_matmul_flops(config, BATCH, PROMPT)
    dense = {**config, "num_experts_per_tok": config["num_local_experts"]}
    assert rooftop_matmul_flops(dense, Phase.PREFILL, BATCH, PROMPT) == prefill
    assert rooftop_matmul_flops(dense, Phase.DECODE, BATCH, PROMPT, context=PROMPT) == decode
    assert rooftop_matmul_flops(config, Phase.PREFILL, BATCH, PROMPT) < prefill


@pytest.mark.parametrize("model_type", sorted(DEFAULT_SHRINK))
def test_families_from_default_configs_flops_equal_flop_counter(model_type):
    # transformers' default config (tests/data/default_configs.json), shrunk: AFMoE's and Beam's
    # output gates, EXAONE-MoE / Hy3 / AFMoE's shared experts and dense prefix, GLM-4.7-Flash and
    # A.X K1's MLA (A.X K1's norm after the experts), Aria's shared experts, Jais-2 and nanochat's
    # ReLU² MLPs. MLA's decode runs absorbed in rooftop (as FlashMLA and vLLM do), expanded in
    # transformers' eager code: there, as for DeepSeek-V3, the prefill is compared
    transformers = pytest.importorskip("transformers")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    if model_type not in CONFIG_MAPPING_NAMES:  # 5.25.0's types where pip resolves 5.24.0
        pytest.skip(f"transformers {transformers.__version__} has no {model_type!r}")
    config = shrunk_default(model_type)
    prefill, decode = torch_matmul_flops(config, BATCH, PROMPT)
    assert rooftop_matmul_flops(config, Phase.PREFILL, BATCH, PROMPT) == prefill
    if "kv_lora_rank" not in config:
        assert rooftop_matmul_flops(config, Phase.DECODE, BATCH, PROMPT, context=PROMPT) == decode


def test_gemma4_kv_sharing_prefill_counts_every_position():
    # gemma-4-31b's dense layout with per-layer inputs and the last 3 of 6 layers KV-shared (their
    # MLP twice as wide). Decode is exact. In prefill, transformers runs the KV-shared layers on the
    # kept logits' positions only (nothing later reads the others: they cache nothing), as vLLM's
    # opt-in kv_sharing_fast_prefill does; rooftop counts vLLM's default, every position. The gap
    # is those layers on the 11 other positions of each of the 2 sequences, 22 tokens x 2 FLOPs a
    # weight: sliding layers q 64 x 64 + o 64 x 64 + MLP 3 x 64 x 192 + per-layer 2 x 64 x 8 =
    # 46,080 weights (x 2 layers), the full layer q 64 x 128 + o 128 x 64 + the same = 54,272 ->
    # 22 x 2 x 146,432 = 6,443,008; and their attention, 11 queries x 12 keys per sequence: 2 x 4
    # heads x (16 + 16) x 2 (sliding, x 2 layers) + 2 x 4 x (32 + 32) (full) = 1,024 FLOPs a pair,
    # x 264 pairs = 270,336
    config = shrunk_config("gemma-4-31b")
    prefill, decode = torch_matmul_flops(config, BATCH, PROMPT)
    assert rooftop_matmul_flops(config, Phase.DECODE, BATCH, PROMPT, context=PROMPT) == decode
    assert rooftop_matmul_flops(config, Phase.PREFILL, BATCH, PROMPT) - prefill == 6_443_008 + 270_336


SHORT_CONV = {  # LFM2, LFM2-MoE and LFM3 shrunk: convolution layers between attention layers
    "lfm2": {"layer_types": ["conv", "full_attention", "conv", "full_attention"], "block_multiple_of": 16},
    "lfm2_moe": {
        "layer_types": ["conv", "full_attention", "conv", "conv"],
        "moe_intermediate_size": 32,
        "num_dense_layers": 1,
        "num_experts": 4,
        "num_experts_per_tok": 2,
    },
    "lfm3": {"num_hidden_layers": 6, "sliding_window": 64, "pad_token_id": 0},  # its default layout
}


@pytest.mark.parametrize("model_type", sorted(SHORT_CONV))
def test_short_convolution_families_flops_equal_flop_counter(model_type):
    # the convolutions and their gates are not matmuls (a depthwise aten.convolution, elementwise
    # products): what is compared is the projections, attention, gates and MLPs around them
    config = {
        **SMALL,
        "model_type": model_type,
        "num_hidden_layers": 4,
        "num_key_value_heads": 2,
        "conv_L_cache": 3,
        **SHORT_CONV[model_type],
    }
    prefill, decode = torch_matmul_flops(config, BATCH, PROMPT)
    assert rooftop_matmul_flops(config, Phase.PREFILL, BATCH, PROMPT) == prefill
    assert rooftop_matmul_flops(config, Phase.DECODE, BATCH, PROMPT, context=PROMPT) == decode


def test_longcat_flash_blocks_prefill():
    # LongCat-Flash shrunk to 2 blocks: per block two MLA sublayers, two dense MLPs and the shortcut
    # MoE beside the first. Without zero experts (transformers' eager loop runs the ones the random
    # router picks, so their share is the router's, not the expectation rooftop counts); MLA at
    # prefill, as DeepSeek-V3 (its decode is absorbed in rooftop, expanded in transformers)
    from tests.models.test_families_2026 import LONGCAT_FLASH

    config = {
        **LONGCAT_FLASH,
        **SMALL,
        "num_layers": 2,
        "num_key_value_heads": 4,
        "ffn_hidden_size": 96,
        "expert_ffn_hidden_size": 32,
        "n_routed_experts": 4,
        "zero_expert_num": 0,
        "moe_topk": 2,
        "q_lora_rank": 48,
        "kv_lora_rank": 32,
        "qk_nope_head_dim": 16,
        "qk_rope_head_dim": 8,
        "v_head_dim": 16,
        "qk_head_dim": 24,
        "head_dim": 8,  # LongCat's head_dim is the rotary width
        "pad_token_id": 0,
    }
    config.pop("intermediate_size")
    prefill, _ = torch_matmul_flops(config, BATCH, PROMPT)
    assert rooftop_matmul_flops(config, Phase.PREFILL, BATCH, PROMPT) == prefill


def test_minimax_lightning_attention():
    # transformers' default layout (even layers softmax, odd lightning) shrunk to 4 layers, blocks of
    # 4 tokens. Decode is exact: per lightning layer and head k^T v and q S, 2 × 2 × 16² FLOPs a
    # token. A prefill runs blocks: the same inter-block products plus, per block of 4 and head,
    # (Q K^T) V inside the block, 2 × 2 × 4² × 16 = 1,024 FLOPs rooftop's recurrent form has not:
    # 3 blocks x 4 heads x 2 sequences x 2 layers x 1,024 = 49,152
    config = {
        **SMALL,
        "model_type": "minimax",
        "num_hidden_layers": 4,
        "num_key_value_heads": 2,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "block_size": 4,
    }
    prefill, decode = torch_matmul_flops(config, BATCH, PROMPT)
    assert rooftop_matmul_flops(config, Phase.DECODE, BATCH, PROMPT, context=PROMPT) == decode
    assert prefill - rooftop_matmul_flops(config, Phase.PREFILL, BATCH, PROMPT) == 3 * 4 * 2 * 2 * 1024


def test_recurrent_gemma_prefill():
    # RecurrentGemma shrunk to 3 layers (recurrent, recurrent, attention): its gates are baddbmm's
    # over the blocks, as rooftop's k = block GEMM; its cache lives in the modules (transformers
    # returns none to decode from), so the prefill is compared
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    from transformers import AutoConfig, AutoModelForCausalLM

    config = {**SMALL, "model_type": "recurrent_gemma", "num_hidden_layers": 3, "num_key_value_heads": 1}
    config |= {"lru_width": 64, "attention_window_size": 64, "head_dim": 16, "pad_token_id": 0}
    hf = AutoConfig.for_model("recurrent_gemma", **{k: v for k, v in config.items() if k != "model_type"})
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(hf, attn_implementation="eager").eval()
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(input_ids=torch.randint(0, 128, (BATCH, PROMPT)), logits_to_keep=1)
    counts = counter.get_flop_counts()["Global"]
    prefill = float(sum(v for k, v in counts.items() if str(k).split(".")[-1] in MATMUL_OPS))
    assert rooftop_matmul_flops(config, Phase.PREFILL, BATCH, PROMPT) == prefill
