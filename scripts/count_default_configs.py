"""Store transformers' default config of a fixed list of model types, with its meta-device count.

Writes tests/data/default_configs.json, which tests/models/test_default_configs.py reads (it needs
no transformers for the stored part). For each model type of ``COUNTED``: the default config's
``to_dict()`` (null fields, ``id2label``/``label2id`` and version keys dropped: rooftop reads a null
field as absent), and the parameter count of the causal-LM class transformers maps the type to
(for ``MULTIMODAL``, its image-text-to-text class: vision tower, projector and language model),
built on ``torch.device("meta")`` (no memory, no weights): ``sum(p.numel() for p in
model.parameters())``, tied weights once, buffers excluded. For each type of ``REFUSED``: the
config and the phrase rooftop's one-line refusal must contain. Never ``trust_remote_code``.

The list is the survey's (every model type with a causal-LM class, its default config through
rooftop and through transformers): the types counted equal, and the types rooftop refuses by
name. Run: PYTHONPATH=src python scripts/count_default_configs.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TARGET = Path(__file__).resolve().parents[1] / "tests" / "data" / "default_configs.json"
COUNTED = (
    "afmoe apertus apertus1p5_text arcee aria_text axk1 bailing_hybrid bamba beam biogpt bitnet bloom codegen"
    " cohere cohere2 cohere2_moe cwm deepseek_v3 ergo ernie4_5 ernie4_5_moe exaone exaone4 exaone_moe"
    " falcon falcon_h1 flex_olmo flint gemma gemma2 gemma3 gemma3_text gemma3n_text gemma4 gemma4_text glm glm4"
    " glm4_moe_lite gpt-sw3 gpt2 gpt_bigcode gpt_neox gpt_oss gptj granite granite_swa granitemoe"
    " granitemoe_swa granitemoehybrid granitemoeshared helium hy_v3 hyperclovax internlm3 iquestcoder"
    " jais2 jamba kimi_linear kolibri1 laguna lara_mini lfm2 lfm3 llama llama4_text mellum mimo_v2_flash minicpm3"
    " mamba mamba2 falcon_mamba"
    " minicpm5_moe minimax minimax_m2 minimax_m3_vl_text ministral3 mistral mixtral mpt nanochat nemotron_h olmo olmo2"
    " olmo3 olmo_hybrid olmoe opt param2moe persimmon phi phi3 phimoe qwen2 qwen2_moe qwen3 qwen3_5_moe_text"
    " qwen3_5_text qwen3_moe qwen3_next recurrent_gemma sarvam_mla sarvam_moe seed_oss smollm3 solar_open"
    " stablelm starcoder2 vaultgemma youtu"
).split()
# Multimodal types whose vision tower rooftop counts (models/vision.py), the whole image-text-to-text
# model built: tower, projector and language model. Left out: gemma4 (its default config has no
# vision_config; it is counted above), aya_vision (transformers cannot build
# its default: 1152 wide, 14 heads), glm4v_moe (its default text config has 96 heads over 4096,
# which rooftop refuses as indivisible; real configs give head_dim). internvl, mistral3,
# qwen3_vl_moe, kimi_k25, hyperclovax_vision_v2 and lighton_ocr have a top-level
# tie_word_embeddings that contradicts their text_config's: the top-level one ties, in transformers
# 5 and in vLLM (config/vllm.py, with_hf_config), and in rooftop.
MULTIMODAL = (
    "cohere2_vision cosmos3_omni fuyu gemma3 glm46v glm4v glmga idefics3 lfm2_vl llama4 llava llava_next"
    " llava_next_video llava_onevision1_5 mllama ovis2_5 paligemma qianfan_ocr qwen2_5_vl qwen2_vl qwen3_5"
    " qwen3_5_moe qwen3_vl shieldgemma2 smolvlm video_llava vipllava exaone4_5 lfm3_vl minicpmv4_6 minicpmv4_7"
    " paddleocr_vl step3p7 llava_onevision glm_ocr internvl mistral3 qwen3_vl_moe kimi_k25 hyperclovax_vision_v2"
    " lighton_ocr molmo2 minicpm_ocr video_llama_3 minimax_m3_vl cosmos3_edge muse_glimmer gemma3n fast_vlm"
).split()
# Built with timm (Gemma 3n's and FastVLM's vision towers are timm code): run with timm importable.
NEEDS_TIMM = ("gemma3n", "fast_vlm")
ENCODER = "token-type embeddings \\(a BERT-style encoder\\)"
# In neither list, counted by hand in tests/models/test_families_2026.py: dbrx (transformers 5.24
# cannot build it: its DbrxAttentionConfig has no rope_theta) and longcat_flash (transformers
# allocates gate_up weights for its zero-computation experts, which the checkpoint has not).
REFUSED = {
    "axk2": "norms scaled by a small MLP",
    "dots3_note_text": "MLA widths that differ",
    "inkling_text": "short convolutions on keys, values",
    "inkling2_text": "short convolutions on keys, values",
    "inkling2_loop_text": "short convolutions on keys, values",
    "zaya": "compressed convolutional attention",
    "kolibri1_1": "pooled key selection over compressed blocks",
    "dory": "normalized-transformer layers",
    "hrm_text": "hierarchical recurrent modules",
    "moshi": "audio codebooks",
    "modernbert-decoder": "ModernBERT's prediction head",
    "bert-generation": "a BERT encoder stack",
    "evolla": "a protein encoder",
    **dict.fromkeys(
        (
            "bert big_bird camembert data2vec-text electra ernie megatron-bert rembert roberta"
            " roberta-prelayernorm roc_bert roformer xlm-roberta xlm-roberta-xl xmod"
        ).split(),
        ENCODER,
    ),
}
NOISE = ("id2label", "label2id", "transformers_version", "_name_or_path")


def clean(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` without null fields and bookkeeping keys (its nested ``*_config`` too)."""
    return {
        k: clean(v) if isinstance(v, dict) and k.endswith("_config") else v
        for k, v in config.items()
        if v is not None and k not in NOISE and not k.startswith("_")
    }


def default_config(model_type: str) -> dict[str, Any]:
    from transformers import AutoConfig

    return clean(AutoConfig.for_model(model_type).to_dict())


def meta_count(model_type: str, config: dict[str, Any] | None = None) -> int:
    """transformers' parameter count of ``model_type``'s causal LM, built on the meta device."""
    import torch
    import transformers
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    hf_config = AutoConfig.for_model(model_type, **{k: v for k, v in (config or {}).items() if k != "model_type"})
    cls = getattr(transformers, MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[model_type])
    with torch.device("meta"):
        model = cls(hf_config)
    return sum(p.numel() for p in model.parameters())


def meta_count_multimodal(model_type: str) -> int:
    """transformers' parameter count of ``model_type``'s whole image-text-to-text model, on the meta device."""
    import torch
    import transformers
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES

    cls = getattr(transformers, MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES[model_type])
    with torch.device("meta"):
        model = cls(AutoConfig.for_model(model_type))
    return sum(p.numel() for p in model.parameters())


def main() -> int:
    import transformers

    out: dict[str, Any] = {"transformers": transformers.__version__, "counted": {}, "multimodal": {}, "refused": {}}
    for model_type in COUNTED:
        out["counted"][model_type] = {"params": meta_count(model_type), "config": default_config(model_type)}
        print(model_type, out["counted"][model_type]["params"], flush=True)
    for model_type in MULTIMODAL:
        count = meta_count_multimodal(model_type)
        out["multimodal"][model_type] = {"params": count, "config": default_config(model_type)}
        print(model_type, count, flush=True)
    for model_type, why in REFUSED.items():
        out["refused"][model_type] = {"refusal": why, "config": default_config(model_type)}
    TARGET.write_text(dumps(out), encoding="utf-8")
    return 0


def dumps(out: dict[str, Any]) -> str:
    """JSON with one line per model type (a diff shows which type changed)."""
    lines = [f'{{"transformers": {json.dumps(out["transformers"])},']
    for part in ("counted", "multimodal", "refused"):
        rows = [f" {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in sorted(out[part].items())]
        lines.append(f' "{part}": {{\n' + ",\n".join(rows) + "\n }" + ("," if part != "refused" else ""))
    return "\n".join(lines) + "\n}\n"


if __name__ == "__main__":
    raise SystemExit(main())
