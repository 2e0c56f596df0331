"""What rooftop does not model, named: refused ``model_type`` values, fields that announce an unmodelled structure.

A config is refused in one line that says what is missing (``refusal``), never half-counted:
a cross-attention, encoder or audio stack, a state-space or linear-attention field outside the
families whose layouts read it, or a layout only remote code defines (rooftop never runs it).
The families rooftop does model, and their defaults, are in ``models/families.py``.
"""

from __future__ import annotations

from typing import Any

from rooftop.models.families import FAMILIES, auto_config_family

# model_types whose structure rooftop does not model, with the feature that is missing.
REFUSED_TYPES = {
    "jetmoe": "mixture-of-attention-heads layers (JetMoE)",
    "doge": "dynamic-mask attention with cross-domain MoE (Doge)",
    "xlstm": "xLSTM blocks",
    "rwkv": "RWKV time-mixing blocks",
    "blt": "byte-latent patching (BLT)",
    # transformers 5.24's Gemma 4 Unified: another layout than gemma4_text's (its default config read
    # as Gemma 4 counts 5.08 B, transformers 3.01 B); the assistant is a draft model over centroids
    "gemma4_unified": "the Gemma 4 Unified layout (rooftop covers gemma4 and gemma4_text)",
    "gemma4_unified_text": "the Gemma 4 Unified layout (rooftop covers gemma4 and gemma4_text)",
    "gemma4_unified_assistant": "the Gemma 4 assistant's centroid layout",
    "gemma4_assistant": "the Gemma 4 assistant's centroid layout",
    "axk2": "norms scaled by a small MLP and a gated latent query (A.X K2)",
    "dots3_note_text": "MLA widths that differ between its sliding and indexed layers (dots3)",
    "inkling": "short convolutions on keys, values and the residual stream (Inkling)",
    "inkling_text": "short convolutions on keys, values and the residual stream (Inkling)",
    "inkling2": "short convolutions on keys, values and the residual stream (Inkling)",
    "inkling2_text": "short convolutions on keys, values and the residual stream (Inkling)",
    "inkling2_loop_text": "short convolutions on keys, values and the residual stream (Inkling)",
    "zaya": "compressed convolutional attention and MLP routers (ZAYA)",
    "dory": "normalized-transformer layers with learned per-channel scales (Dory)",
    "hrm_text": "hierarchical recurrent modules run in cycles (HRM)",
    "moshi": "a speech-text layout with audio codebooks (Moshi)",
    "modernbert-decoder": "ModernBERT's prediction head and its first layer without an attention norm",
    "bert-generation": "a BERT encoder stack (BertGeneration)",
    # BLIP's captioning text model: BERT layers with cross-attention to the image (read as Llama it
    # counted 136.7 M with nothing of its own layout)
    "blip_text_model": "BERT layers with cross-attention to the image (BLIP)",
    # transformers 5.25's Kolibri 1.1: each query attends to top-k keys of a pool chosen over
    # compressed key blocks, and indexed layers read the keys and values of earlier ones
    "kolibri1_1": "pooled key selection over compressed blocks with keys and values shared across layers (Kolibri 1.1)",
}
# Fields whose non-null presence means a structure rooftop does not model (any family).
UNMODELLED_FIELDS = {
    "encoder_layers": "an encoder-decoder",
    "cross_attention_hidden_size": "cross-attention",
    "cross_attention_layers": "cross-attention layers",
    "compress_ratios": "compressed sparse attention (DeepSeek-V4)",
    "hc_mult": "hyper-connections (DeepSeek-V4, Hunyuan-V4, GLM-5-Next)",
    "audio_config": "an audio tower (encoder and projector)",
    # Chameleon, Emu3: images enter as tokens of a VQ-VAE (a convolutional encoder and decoder,
    # 29 M and 271 M at transformers' defaults) that rooftop does not count
    "vq_config": "a VQ-VAE image tokenizer (Chameleon, Emu3)",
    "protein_encoder_config": "a protein encoder with cross-attention aligner layers (Evolla)",
    # BERT, RoBERTa, ELECTRA, XLM-R...: token-type embeddings, post-norm encoder layers, a pooler
    "type_vocab_size": "token-type embeddings (a BERT-style encoder)",
}
# Fields the named families' layouts read (models/layouts.py): refused in any other family.
FIELD_READERS = {
    "cross_attention_layers": ("mllama_text_model", "mllama"),
    "audio_config": ("gemma3n",),  # its conformer is counted with the towers (models/vision.py)
}
# Hybrid fields: refused unless the family's layout reads them (HYBRID_FAMILIES).
HYBRID_FAMILIES = (
    "mamba",
    "falcon_mamba",
    "mamba2",
    "jamba",
    "nemotron_h",
    "qwen3_next",
    "qwen3_5_text",
    "lara_mini",
    "qwen3_5_moe_text",
    "falcon_h1",
    "granitemoehybrid",
    "bamba",
    "olmo_hybrid",
)
HYBRID_FIELDS = {
    "ssm_state_size": "state-space (Mamba) layers",
    "mamba_d_state": "state-space (Mamba) layers",
    "state_size": "state-space (Mamba) layers",
    "linear_num_key_heads": "linear-attention layers",
}


def refused_type(config: dict[str, Any]) -> str | None:
    """Why a config whose model_type (or its text_config's) rooftop refuses by name cannot be modelled.

    Checked before the fields are, so that the refusal names the family rather than a field.
    """
    text = config.get("text_config")
    for kind in (config.get("model_type"), text.get("model_type") if isinstance(text, dict) else None):
        if isinstance(kind, str) and kind in REFUSED_TYPES:
            return _by_name(kind)
    return None


def _by_name(model_type: str) -> str:
    return f"model_type {model_type!r} has {REFUSED_TYPES[model_type]}, which rooftop does not model"


def refusal(config: dict[str, Any], model_type: str, wrapper: bool = False) -> str | None:
    """Why ``config`` cannot be modelled, or None.

    ``wrapper``: a multimodal config holding a ``text_config``; its own remote code only joins the
    towers, so its ``auto_map`` is not a refusal (the text model and the vision tower decide).
    """
    if model_type in REFUSED_TYPES:
        return _by_name(model_type)
    for name, what in UNMODELLED_FIELDS.items():
        if model_type in FIELD_READERS.get(name, ()):
            continue
        if config.get(name) is not None and config.get(name) != []:
            return f"field {name!r} announces {what}, which rooftop does not model"
    if model_type not in HYBRID_FAMILIES:
        for name, what in HYBRID_FIELDS.items():
            if config.get(name) is not None:
                return f"field {name!r} announces {what}, which rooftop does not model for {model_type!r}"
    if model_type not in FAMILIES and config.get("auto_map") and not wrapper:
        if auto_config_family(config, model_type) is None:
            return _remote_code(config["auto_map"], model_type)
    return None


def _remote_code(auto_map: Any, model_type: str) -> str:
    """The refusal of a layout only remote code defines, naming what the config lacks."""
    if model_type:
        return (
            f"model_type {model_type!r} is defined by remote code (auto_map), which rooftop never runs;"
            " its layer layout is unknown"
        )
    target = auto_map.get("AutoConfig") if isinstance(auto_map, dict) else None
    named = f" ({target!r})" if isinstance(target, str) and len(target) <= 120 else ""  # repr: one line
    return (
        f"no model_type, and auto_map points to remote code{named}, which rooftop never runs;"
        " its layer layout is unknown"
    )
