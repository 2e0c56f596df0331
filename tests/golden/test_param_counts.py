"""Parameter counts of every preset equal the official counts.

Sources: the "Model size" / safetensors parameter totals that the Hugging Face model pages print for each
repository named in the preset's ``_source`` (e.g. meta-llama/Llama-2-7b-hf: 6,738,415,616 params), and for
DeepSeek-V3 the technical report (arXiv 2412.19437: "671B total parameters"; the Hub's 685B adds the 14B
multi-token-prediction module, which inference without MTP does not load).
"""

from __future__ import annotations

import pytest

from rooftop.models.presets import load_preset, preset_names

OFFICIAL = {
    "llama-2-7b": 6_738_415_616,
    "llama-2-13b": 13_015_864_320,
    "llama-2-70b": 68_976_648_192,
    "llama-3.1-8b": 8_030_261_248,
    "llama-3.1-70b": 70_553_706_496,
    "llama-3.1-405b": 405_853_388_800,
    "llama-3.2-1b": 1_235_814_400,
    "mistral-7b": 7_241_732_096,
    "mixtral-8x7b": 46_702_792_704,
    "qwen2.5-7b": 7_615_616_512,
    "qwen2.5-72b": 72_706_203_648,
    "qwen3-30b-a3b": 30_532_122_624,
    "gemma-2-9b": 9_241_705_984,
    "phi-3-mini": 3_821_079_552,
    "gpt2": 124_439_808,
}


# Shipped for profiling on small CPUs; not a published model, so it has no official count.
SYNTHETIC = {"llama-cpu-small"}


def test_every_preset_has_an_official_count():
    assert set(preset_names()) == set(OFFICIAL) | {"deepseek-v3", "deepseek-v3.2"} | set(GPT_OSS) | SYNTHETIC


# OpenAI's gpt-oss model card (arXiv 2508.10925, the architecture table): 116.83B total and 5.13B
# active parameters for gpt-oss-120b, 20.91B and 3.61B for gpt-oss-20b; its active count leaves the
# embedding out (201,088 × 2880 = 579,133,440) and keeps the unembedding. The Hub's "120B params"
# counts the MXFP4 blocks as U8 bytes, two weights each, so it is not the parameter count.
GPT_OSS = {"gpt-oss-120b": (116.83e9, 5.13e9), "gpt-oss-20b": (20.91e9, 3.61e9)}


@pytest.mark.parametrize("name", sorted(GPT_OSS))
def test_gpt_oss_counts_as_its_model_card(name):
    spec = load_preset(name)
    total, active = GPT_OSS[name]
    assert spec.param_count() == pytest.approx(total, abs=5e6)  # 116,829,156,672 / 20,914,757,184
    assert spec.param_count(active=True) - spec.embedding_params == pytest.approx(active, abs=5e6)


def test_synthetic_preset_count():
    # hidden 1024, 4 layers, 16 heads / 4 KV heads of 64, SwiGLU 2816, vocab 32000, untied:
    # per layer q 1024² + k,v 2 x 1024x256 + o 1024² + 3 x 1024x2816 + 2 norms x 1024 = 11,274,240
    # total 2 x 32000 x 1024 (embed + lm_head) + 4 x 11,274,240 + 1024 = 110,633,984
    assert load_preset("llama-cpu-small").param_count() == 110_633_984


@pytest.mark.parametrize("name", sorted(OFFICIAL))
def test_param_count_exact(name):
    assert load_preset(name).param_count() == OFFICIAL[name]


def test_deepseek_v3_671b_total_37b_active():
    spec = load_preset("deepseek-v3")
    assert spec.param_count() == pytest.approx(671e9, rel=1e-3)  # 671,026,419,200
    assert spec.param_count(active=True) == pytest.approx(37e9, rel=0.02)  # report: "37B activated"


def test_deepseek_v32_is_v3_plus_its_indexers():
    # DeepSeek-V3.2 = DeepSeek-V3 + one lightning indexer per layer: wq_b 1536 x (64 x 128) +
    # wk 7168 x 128 + k_norm 2 x 128 + weights_proj 7168 x 64 = 13,959,424; x 61 = 851,524,864
    # (transformers' DeepseekV32ForCausalLM counts 671,877,929,216: the same less V3's 14,848 router
    # correction biases it keeps as buffers)
    assert load_preset("deepseek-v3.2").param_count() == load_preset("deepseek-v3").param_count() + 851_524_864
    assert load_preset("deepseek-v3.2").param_count() == 671_877_944_064


def test_moe_active_counts():
    # Mixtral: "12.9B active parameters" (Mistral AI announcement); Qwen3-30B-A3B: "3.3B activated" (model card).
    assert load_preset("mixtral-8x7b").param_count(active=True) == pytest.approx(12.9e9, rel=0.01)
    assert load_preset("qwen3-30b-a3b").param_count(active=True) == pytest.approx(3.3e9, rel=0.02)
