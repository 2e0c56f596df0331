"""Parameters of the vision tower (and projector) of a multimodal config.

The text path is what rooftop analyses; the tower is counted so that the weights in memory and
the total parameters are right. One function per tower family, keyed by the config's
``model_type`` (top level); shapes as transformers builds them. A config whose tower is not listed
is refused (by ``hf_config``), never counted without its tower.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rooftop.errors import SpecError


def _int(cfg: dict[str, Any], key: str, where: str, default: int | None = None) -> int:
    value = cfg.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SpecError(f"{where}: vision_config field {key!r} must be a non-negative integer, got {value!r}")
    return value


def _patch(cfg: dict[str, Any], where: str, default: int) -> int:
    """``patch_size``: the image is divided by it, so it must be positive."""
    patch = _int(cfg, "patch_size", where, default)
    if not patch:
        raise SpecError(f"{where}: vision_config field 'patch_size' must be positive")
    return patch


def _linear(k: int, n: int, bias: bool = True) -> int:
    return k * n + (n if bias else 0)


def _vit_layer(h: int, i: int) -> int:
    """A ViT encoder layer (CLIP, SigLIP...): biased q/k/v/o, a biased two-linear MLP, two LayerNorms."""
    return 4 * _linear(h, h) + _linear(h, i) + _linear(i, h) + 2 * 2 * h


def _siglip_tower(v: dict[str, Any], where: str, head: bool = True) -> int:
    """A SigLIP encoder: LayerNorms, biased projections, a GELU MLP, a post-LayerNorm.

    SigLIP 2 and Idefics3 build it too: patches projected (conv or linear: the same count), a
    position per patch (SigLIP 2: ``num_patches`` of them).

    ``vision_use_head`` (SiglipVisionConfig's default True) adds the attention-pooling head: a
    probe, a biased multi-head attention, a LayerNorm and an MLP; ``head`` False: never built.
    """
    h, i = _int(v, "hidden_size", where, 768), _int(v, "intermediate_size", where, 3072)
    patch, size = _patch(v, where, 16), _int(v, "image_size", where, 224)
    positions = _int(v, "num_patches", where) if "num_patches" in v else (size // patch) ** 2
    layer = _vit_layer(h, i)
    tower = _linear(_int(v, "num_channels", where, 3) * patch * patch, h) + positions * h + 2 * h
    pooling = h + _linear(h, 3 * h) + _linear(h, h) + 2 * h + _linear(h, i) + _linear(i, h)
    tower += pooling if head and v.get("vision_use_head", True) else 0
    return tower + _int(v, "num_hidden_layers", where, 12) * layer


def _siglip(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Gemma 3: a SigLIP encoder + the mm projector (hidden -> text width, and its soft-embedding norm)."""
    h = _int(v, "hidden_size", where, 768)
    return _siglip_tower(v, where) + h * text_hidden + h


def _paligemma(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """PaliGemma: a SigLIP encoder + one biased projection to ``projection_dim``."""
    h = _int(v, "hidden_size", where, 768)
    return _siglip_tower(v, where) + _linear(h, _int(top, "projection_dim", where, 2048))


def _pixel_shuffle(top: dict[str, Any], v: dict[str, Any], where: str, key: str = "downsample_factor") -> int:
    """Width of the features after folding ``key``² neighbouring patches into one."""
    return _int(v, "hidden_size", where, 768) * _int(top, key, where, 2) ** 2


def _aya_vision(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Aya Vision: SigLIP, pixel shuffle, LayerNorm, SwiGLU projector (half its width feeds linear_2)."""
    wide, align = _pixel_shuffle(top, v, where), _int(top, "alignment_intermediate_size", where, text_hidden)
    return _siglip_tower(v, where) + 2 * wide + _linear(wide, align) + _linear(align // 2, text_hidden)


def _cohere2_vision(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Command A Vision: SigLIP, pixel shuffle, SwiGLU projector (no LayerNorm)."""
    wide, align = _pixel_shuffle(top, v, where), _int(top, "alignment_intermediate_size", where, 36864)
    return _siglip_tower(v, where) + _linear(wide, align) + _linear(align // 2, text_hidden)


def _lfm2_vl(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """LFM2-VL: SigLIP 2, pixel unshuffle, an optional LayerNorm and a two-layer GELU projector."""
    wide, width = _pixel_shuffle(top, v, where), _int(top, "projector_hidden_size", where, 2560)
    bias, norm = bool(top.get("projector_bias", True)), bool(top.get("projector_use_layernorm", True))
    projector = (2 * wide if norm else 0) + _linear(wide, width, bias) + _linear(width, text_hidden, bias)
    return _siglip_tower(v, where) + projector


def _idefics3(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Idefics3 and SmolVLM: a SigLIP encoder without a head, pixel shuffle, one bias-free projection."""
    return _siglip_tower(v, where, head=False) + _pixel_shuffle(top, v, where, "scale_factor") * text_hidden


def _gemma4(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Gemma 4: a ViT without biases (RMSNorms, q/k norms, gated MLP), 2-D position table, projector.

    Patch projection (3·patch² -> h), a position table of 2 × position_embedding_size × h; per
    layer q/k/v/o (heads and KV heads of head_dim), q and k norms of head_dim (v's has no weight),
    a gated MLP and four norms; the pooler and standardisation hold no parameters; the projector
    is one h -> text_hidden matrix after a norm without weight (transformers' Gemma4VisionModel
    and Gemma4MultimodalEmbedder).
    """
    h, i = _int(v, "hidden_size", where, 768), _int(v, "intermediate_size", where, 3072)
    heads, head_dim = _int(v, "num_attention_heads", where, 12), _int(v, "head_dim", where, 64)
    kv_heads, patch = _int(v, "num_key_value_heads", where, 12), _int(v, "patch_size", where, 16)
    attention = 2 * h * heads * head_dim + 2 * h * kv_heads * head_dim + 2 * head_dim
    layer = attention + 3 * h * i + 4 * h
    embed = 3 * patch * patch * h + 2 * _int(v, "position_embedding_size", where, 10240) * h
    return embed + _int(v, "num_hidden_layers", where, 16) * layer + h * text_hidden


def _clip_tower(v: dict[str, Any], where: str) -> int:
    """A CLIP vision encoder: class token, a position per patch and for it, pre/post LayerNorms, biased layers."""
    h, i = _int(v, "hidden_size", where, 1024), _int(v, "intermediate_size", where, 4096)
    patch, size = _int(v, "patch_size", where, 14), _int(v, "image_size", where, 336)
    layer = _vit_layer(h, i)
    embed = h + 3 * patch * patch * h + ((size // patch) ** 2 + 1) * h + 2 * h
    return embed + _int(v, "num_hidden_layers", where, 24) * layer + 2 * h


def _clip_llava(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """LLaVA / LLaVA-NeXT: CLIP encoder + a two-layer projector over the chosen feature layers.

    LLaVA-NeXT (and its video model) adds an ``image_newline`` vector at the text width; VipLlava
    a LayerNorm over the concatenated feature layers first; Video-LLaVA a second CLIP tower for video.
    """
    model_type = top.get("model_type")
    towers = 2 if model_type == "video_llava" else 1  # image_tower and video_tower
    newline = text_hidden if model_type in ("llava_next", "llava_next_video") else 0  # image_newline
    return towers * _clip_tower(v, where) + _llava_projector(top, v, text_hidden, where) + newline


def _llava_projector(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """LLaVA's two-layer projector over the ``vision_feature_layer`` states (VipLlava's: a LayerNorm first)."""
    feature_layers = top.get("vision_feature_layer", -2)
    width = _int(v, "hidden_size", where, 1024) * (len(feature_layers) if isinstance(feature_layers, list) else 1)
    bias = bool(top.get("multimodal_projector_bias", True))
    projector = _linear(width, text_hidden, bias) + _linear(text_hidden, text_hidden, bias)
    return projector + (2 * width if top.get("model_type") == "vipllava" else 0)


def _pixtral(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Mistral 3: Pixtral encoder (RMSNorms, no biases, gated MLP) + patch merger and projector."""
    h, i, patch = _int(v, "hidden_size", where, 1024), _int(v, "intermediate_size", where), _int(v, "patch_size", where)
    merge = _int(top, "spatial_merge_size", where, 2)
    bias = bool(top.get("multimodal_projector_bias", True))
    layer = 4 * h * h + 3 * h * i + 2 * h
    tower = 3 * patch * patch * h + h + _int(v, "num_hidden_layers", where) * layer
    projector = h + h * merge * merge * h + _linear(h, text_hidden, bias) + _linear(text_hidden, text_hidden, bias)
    return tower + projector


def _qwen2_5_vl(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Qwen2.5-VL: ViT with RMSNorms, biased qkv/proj and gated MLP; merger MLP over 2x2 patches.

    EXAONE 4.5's ViT is this one with grouped key/value heads: ``num_key_value_heads`` of
    hidden / num_heads each in the fused qkv.
    """
    h, i, patch = _int(v, "hidden_size", where), _int(v, "intermediate_size", where), _int(v, "patch_size", where)
    temporal, merge = _int(v, "temporal_patch_size", where, 2), _int(v, "spatial_merge_size", where, 2)
    out = _int(v, "out_hidden_size", where, text_hidden)
    heads = _int(v, "num_heads", where, 16)
    kv = _int(v, "num_key_value_heads", where, heads)
    if not heads:
        raise SpecError(f"{where}: vision_config field 'num_heads' must be positive")
    qkv = 3 * h if kv == heads else h + 2 * kv * (h // heads)
    layer = 2 * h + _linear(h, qkv) + _linear(h, h) + 2 * _linear(h, i) + _linear(i, h)
    wide = h * merge * merge
    merger = h + _linear(wide, wide) + _linear(wide, out)
    return 3 * temporal * patch * patch * h + _int(v, "depth", where) * layer + merger


def _qwen2_vl(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Qwen2-VL: a ViT ``embed_dim`` wide and a merger MLP to ``hidden_size`` (the text width).

    LayerNorms, biased qkv/proj and a GELU MLP ``mlp_ratio`` times wider; the merger folds
    spatial_merge_size² patches.
    """
    e, ratio = _int(v, "embed_dim", where, 1280), _int(v, "mlp_ratio", where, 4)
    patch, temporal = _int(v, "patch_size", where, 14), _int(v, "temporal_patch_size", where, 2)
    merge, out = _int(v, "spatial_merge_size", where, 2), _int(v, "hidden_size", where, text_hidden)
    layer = 2 * 2 * e + _linear(e, 3 * e) + _linear(e, e) + _linear(e, ratio * e) + _linear(ratio * e, e)
    wide = e * merge * merge
    merger = 2 * e + _linear(wide, wide) + _linear(wide, out)
    embed = _int(v, "in_channels", where, 3) * temporal * patch * patch * e
    return embed + _int(v, "depth", where, 32) * layer + merger


def _qwen3_vl(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Qwen3-VL / Qwen3.5: ViT with LayerNorms and plain GELU MLP; merger (+ DeepStack mergers)."""
    h, i, patch = _int(v, "hidden_size", where), _int(v, "intermediate_size", where), _int(v, "patch_size", where)
    temporal, merge = _int(v, "temporal_patch_size", where, 2), _int(v, "spatial_merge_size", where, 2)
    out = _int(v, "out_hidden_size", where, text_hidden)
    layer = _vit_layer(h, i)
    wide = h * merge * merge
    embed = _linear(3 * temporal * patch * patch, h) + _int(v, "num_position_embeddings", where) * h
    merger = 2 * h + _linear(wide, wide) + _linear(wide, out)
    deepstack = len(v.get("deepstack_visual_indexes") or ()) * (2 * wide + _linear(wide, wide) + _linear(wide, out))
    return embed + _int(v, "depth", where) * layer + merger + deepstack


def _llama4(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Llama 4: ViT (LayerNorms, biased projections, GELU MLP), pixel-shuffle adapter, projector.

    transformers' defaults fill a config without ``vision_config`` (it still builds the tower).
    """
    h, i = _int(v, "hidden_size", where, 768), _int(v, "intermediate_size", where, 5632)
    patch, size = _int(v, "patch_size", where, 14), _int(v, "image_size", where, 448)
    layer = _vit_layer(h, i)
    embed = h + ((size // patch) ** 2 + 1) * h + 3 * patch * patch * h + 2 * 2 * h
    adapter_in, adapter_out = _int(v, "projector_input_dim", where, 4096), _int(v, "projector_output_dim", where, 4096)
    adapter = i * adapter_in + adapter_out * adapter_out
    projector = _int(v, "vision_output_dim", where, 7680) * text_hidden
    return embed + _int(v, "num_hidden_layers", where, 34) * layer + adapter + projector


def _mllama(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Llama 3.2 Vision (``MllamaVisionModel``): tiles of patches, a local and a gated global encoder.

    A bias-free patch convolution, a class embedding, LayerNorms before and after the local encoder;
    a gated position embedding per patch and one per (aspect ratio, tile, patch); gated embeddings
    per (aspect ratio, tile) before and after it. Encoder layers have bias-free q/k/v/o, a biased
    GELU MLP and two LayerNorms; the global ones two gates more. The projector maps
    ``vision_output_dim`` (the last layer's states and those of ``intermediate_layers_indices``) to the text width.
    """
    h, i = _int(v, "hidden_size", where, 1280), _int(v, "intermediate_size", where, 5120)
    patch, size = _patch(v, where, 14), _int(v, "image_size", where, 448)
    tiles, channels = _int(v, "max_num_tiles", where, 4), _int(v, "num_channels", where, 3)
    ratios = v.get("supported_aspect_ratios")
    aspect_ids = 1 + (len(ratios) if isinstance(ratios, list) else 8)  # max_aspect_ratio_id + 1 rows
    patches = (size // patch) ** 2 + 1  # and the class token
    embed = channels * patch * patch * h + h + 1 + patches * h + aspect_ids * tiles * patches * h
    embed += 2 * (aspect_ids * tiles * h + 1) + 2 * 2 * h  # pre/post tile embeddings, pre/post LayerNorms
    layer = 4 * h * h + _linear(h, i) + _linear(i, h) + 2 * 2 * h
    local, glob = _int(v, "num_hidden_layers", where, 32), _int(v, "num_global_layers", where, 8)
    projector = _linear(_int(v, "vision_output_dim", where, 7680), text_hidden)
    return embed + (local + glob) * layer + 2 * glob + projector


def _glm4v(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """GLM-4.1V/4.5V/4.6V (``Glm4vVisionModel``): a video patch convolution, RMS-normed blocks, a merger.

    A biased Conv3d over (temporal_patch_size, patch, patch) patches and a learned position table;
    blocks with a bias-free gated MLP ``out_hidden_size`` wide, fused qkv (``attention_bias``) and an
    output projection; a Conv2d that merges spatial_merge_size² patches to ``out_hidden_size``, and
    a merger (projection, LayerNorm, gated MLP ``intermediate_size`` wide) to the text width.
    """
    h, out = _int(v, "hidden_size", where, 1536), _int(v, "out_hidden_size", where, 4096)
    i, depth = _int(v, "intermediate_size", where, 13696), _int(v, "depth", where, 24)
    patch, size = _patch(v, where, 14), _int(v, "image_size", where, 336)
    frames, merge = _int(v, "temporal_patch_size", where, 2), _int(v, "spatial_merge_size", where, 2)
    embed = _linear(_int(v, "in_channels", where, 3) * frames * patch * patch, h) + (size // patch) ** 2 * h
    block = _linear(h, 3 * h, bool(v.get("attention_bias"))) + h * h + 3 * h * out + 2 * h
    merger = out * out + 2 * out + 3 * out * i
    return embed + depth * block + 2 * h + _linear(h * merge * merge, out) + merger


def _pair(cfg: dict[str, Any], key: str, where: str, default: int) -> tuple[int, int]:
    """A size given as one integer or as [height, width]."""
    value = cfg.get(key, default)
    if isinstance(value, list) and len(value) == 2:
        return _int({key: value[0]}, key, where), _int({key: value[1]}, key, where)
    side = _int(cfg, key, where, default)
    return side, side


def _internvl(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """InternVL (``InternVLVisionModel``, InternViT): a class token and a position per patch, layer-scaled layers.

    Layers: q/k/v (``attention_bias``) and a biased output projection, RMS q/k norms with
    ``use_qk_norm``, two norms (``norm_type`` layer_norm or rms_norm), two layer scales and a biased
    GELU MLP; a final LayerNorm unless ``use_mean_pooling``. The projector folds 1/downsample_ratio²
    patches: a LayerNorm and two biased projections to the text width.
    """
    h, i = _int(v, "hidden_size", where, 1024), _int(v, "intermediate_size", where, 4096)
    (ph, pw), (ih, iw) = _pair(v, "patch_size", where, 14), _pair(v, "image_size", where, 448)
    if not ph or not pw:
        raise SpecError(f"{where}: vision_config field 'patch_size' must be positive")
    positions = (ih // ph) * (iw // pw) + 1 if v.get("use_absolute_position_embeddings", True) else 0
    embed = _linear(_int(v, "num_channels", where, 3) * ph * pw, h) + h + positions * h
    embed += h if v.get("use_mask_token") else 0
    norm = h if v.get("norm_type") == "rms_norm" else 2 * h
    layer = 3 * _linear(h, h, bool(v.get("attention_bias"))) + _linear(h, h) + 2 * norm + 2 * h
    layer += _linear(h, i) + _linear(i, h) + (2 * h if v.get("use_qk_norm") else 0)
    tower = embed + _int(v, "num_hidden_layers", where, 24) * layer + (0 if v.get("use_mean_pooling", True) else 2 * h)
    ratio = top.get("downsample_ratio", 0.5)
    if not isinstance(ratio, int | float) or isinstance(ratio, bool) or not 0 < ratio <= 1:
        raise SpecError(f"{where}: field 'downsample_ratio' must be a number in (0, 1], got {ratio!r}")
    wide = h * int(1 / ratio) ** 2
    return tower + 2 * wide + _linear(wide, text_hidden) + _linear(text_hidden, text_hidden)


def _llava_onevision1_5(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """LLaVA-OneVision-1.5 (RICE-ViT): a bias-free patch convolution, a class token, LayerNorm blocks, a merger.

    A class embedding (hidden) and its rotary frequencies (hidden / heads / 2), a pre-LayerNorm;
    blocks as Qwen3-VL's (LayerNorms, biased qkv/proj, a GELU MLP); the merger folds
    spatial_merge_size² patches (LayerNorm, two biased projections to ``out_hidden_size``).
    """
    h, i, patch = _int(v, "hidden_size", where, 1024), _int(v, "intermediate_size", where, 4096), _patch(v, where, 14)
    heads, merge = _int(v, "num_heads", where, 16), _int(v, "spatial_merge_size", where, 2)
    if not heads:
        raise SpecError(f"{where}: vision_config field 'num_heads' must be positive")
    layer = _vit_layer(h, i)
    embed = _int(v, "in_channels", where, 3) * patch * patch * h + h + h // heads // 2 + 2 * h
    wide = h * merge * merge
    merger = 2 * h + _linear(wide, wide) + _linear(wide, _int(v, "out_hidden_size", where, text_hidden))
    return embed + _int(v, "depth", where, 24) * layer + merger


def _ovis2_5(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Ovis2.5: a SigLIP encoder without a head, then a visual tokenizer and an embedding table.

    The tokenizer maps spatial_merge_size² patches to a probability over ``vocab_size`` visual
    words less the indicator tokens (a bias-free projection and a LayerNorm); the table embeds
    each of ``vocab_size`` words at the text width (bias-free).
    """
    vocab = _int(v, "vocab_size", where, 65536)
    words = vocab - _int(v, "num_visual_indicator_tokens", where, 4)
    if words <= 0:
        raise SpecError(f"{where}: vision_config field 'num_visual_indicator_tokens' must be below vocab_size")
    wide = _int(v, "hidden_size", where, 1152) * _int(v, "spatial_merge_size", where, 2) ** 2
    return _siglip_tower(v, where, head=False) + _linear(wide, words, bias=False) + 2 * words + vocab * text_hidden


def _kimi_k25(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Kimi K2.5 (MoonViT): a biased patch convolution, a learned 2-D position table, LayerNorm blocks, a projector.

    The position table is pos_emb_height × pos_emb_width × hidden (the time axis is a sinusoidal
    buffer); blocks have two LayerNorms, biased q/k/v and output projections and a biased GELU MLP;
    a final LayerNorm. The projector: a LayerNorm of ``projection_hidden_size``, then
    merge_kernel_size patches folded into one and two biased projections (wide -> wide -> text).
    The published checkpoint names the sizes as its remote code does (``vt_hidden_size``,
    ``init_pos_emb_height``, ``mm_hidden_size``): read when transformers' names are absent.
    """
    h, i = _moonvit(v, "hidden_size", where, 1152), _moonvit(v, "intermediate_size", where, 4304)
    patch, (kh, kw) = _patch(v, where, 14), _pair(v, "merge_kernel_size", where, 2)
    table = _moonvit(v, "pos_emb_height", where, 64) * _moonvit(v, "pos_emb_width", where, 64) * h
    layer = _vit_layer(h, i)
    wide = h * kh * kw
    width = _int(top, "projection_hidden_size", where, _int(v, "mm_hidden_size", where, 1152))
    projector = 2 * width + _linear(wide, wide) + _linear(wide, text_hidden)
    layers = _moonvit(v, "num_hidden_layers", where, 27)
    return _linear(3 * patch * patch, h) + table + layers * layer + 2 * h + projector


def _moonvit(v: dict[str, Any], key: str, where: str, default: int) -> int:
    """A MoonViT size under transformers' name, else the checkpoint's (``vt_hidden_size``, ``init_pos_emb_height``)."""
    old = f"init_{key}" if key.startswith("pos_emb") else f"vt_{key}"
    return _int(v, key, where, _int(v, old, where, default))


def _lfm3_vl(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """LFM3-VL: a bias-free linear patch embedding, an RMSNorm, LFM2-style conv/attention layers, a projector.

    Patches (in_channels × temporal_patch_size × patch² -> h, no bias) and an embedding RMSNorm; each
    layer a bias-free gated MLP ``intermediate_size`` wide and two RMSNorms, plus either a gated
    short convolution (in_proj h -> 3h, a depthwise conv_kernel_size² conv, out_proj) or, where
    ``layer_types`` (default: conv for layers 0, 1 and the odd ones) says attention, bias-free GQA
    q/k/v/o with RMS q/k norms of head_dim = h / heads. The projector: a LayerNorm over h, then
    spatial_merge_size² tokens folded through two ``projector_bias`` projections via
    ``projector_hidden_size`` to the text width.
    """
    h, i = _int(v, "hidden_size", where, 1024), _int(v, "intermediate_size", where, 2560)
    heads, kv = _int(v, "num_attention_heads", where, 16), _int(v, "num_key_value_heads", where, 8)
    n, kernel = _int(v, "num_hidden_layers", where, 14), _int(v, "conv_kernel_size", where, 3)
    if not heads:
        raise SpecError(f"{where}: vision_config field 'num_attention_heads' must be positive")
    types = v.get("layer_types") or ["conv" if k < 2 or k % 2 else "full_attention" for k in range(n)]
    if not isinstance(types, list) or len(types) < n:
        raise SpecError(f"{where}: vision_config field 'layer_types' must list {n} layer types, got {types!r}")
    attention_layers = sum(1 for t in types[:n] if t != "conv")
    d = h // heads
    attention = 2 * h * heads * d + 2 * h * kv * d + 2 * d
    conv = 3 * h * h + kernel * kernel * h + h * h
    embed = (
        _int(v, "in_channels", where, 3) * _int(v, "temporal_patch_size", where, 2) * _patch(v, where, 16) ** 2 * h + h
    )
    layers = n * (3 * h * i + 2 * h) + attention_layers * attention + (n - attention_layers) * conv
    wide, width = h * _int(v, "spatial_merge_size", where, 2) ** 2, _int(top, "projector_hidden_size", where, 4096)
    bias = bool(top.get("projector_bias", True))
    return embed + layers + 2 * h + _linear(wide, width, bias) + _linear(width, text_hidden, bias)


# PaddleOCRVisionConfig's defaults where they differ from SigLIP's (those _siglip_tower falls back to)
_PADDLEOCR_DEFAULTS = {
    "hidden_size": 1152,
    "intermediate_size": 4304,
    "num_hidden_layers": 27,
    "image_size": 384,
    "patch_size": 14,
}


def _paddleocr_vl(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """PaddleOCR-VL: a SigLIP encoder without a head, then a projector over 2x2 patches.

    The encoder: a biased patch convolution, (image_size / patch)² learned positions (resampled
    per image), LayerNorm layers with biased q/k/v/o and a GELU MLP, a post-LayerNorm (rotary
    frequencies are buffers). The projector: a LayerNorm over h, spatial_merge_size² patches
    folded through a biased square projection and a biased projection to the text width.
    """
    v = {**_PADDLEOCR_DEFAULTS, **v}
    wide = _int(v, "hidden_size", where) * _int(v, "spatial_merge_size", where, 2) ** 2
    projector = 2 * _int(v, "hidden_size", where) + _linear(wide, wide) + _linear(wide, text_hidden)
    return _siglip_tower(v, where, head=False) + projector


def _minicpm_v(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """MiniCPM-V 4.6 / 4.7: a SigLIP encoder without a head, a window-attention ViT merger, an MLP merger.

    The encoder: a biased patch convolution, (image_size // patch_size)² positions, SigLIP layers
    and a post-LayerNorm (``num_patches`` is never read). The ``vit_merger`` (always built): a
    biased attention and its LayerNorm at the ViT width, then a LayerNorm, linear_1 and linear_2
    over the window_kernel_size-folded patches (widths ×kh·kw: hidden -> intermediate -> hidden).
    The merger: ``merger_times`` DownsampleMLPs over 4·hidden (always ×4): LayerNorm, a square
    projection, then to hidden (all but the last) or the text width.
    """
    h, i = _int(v, "hidden_size", where, 768), _int(v, "intermediate_size", where, 3072)
    kh, kw = _pair(v, "window_kernel_size", where, 2)
    encoder = _siglip_tower({k: x for k, x in v.items() if k != "num_patches"}, where, head=False)
    fold = kh * kw
    vit_merger = 4 * _linear(h, h) + 2 * h + 2 * fold * h + _linear(fold * h, fold * i) + _linear(fold * i, h)
    wide, times = 4 * h, _int(top, "merger_times", where, 1)
    if not times:
        raise SpecError(f"{where}: field 'merger_times' must be positive")
    mlp = 2 * wide + _linear(wide, wide)
    merger = (times - 1) * (mlp + _linear(wide, h)) + mlp + _linear(wide, text_hidden)
    return encoder + vit_merger + merger


def _step3p7(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Step 3.7: a bias-free patch Conv2d, a position per patch, a pre-LayerNorm, layer-scaled blocks, two downsamplers.

    Blocks: two LayerNorms, two layer scales (lambda_1/2), biased q/k/v/out projections and a biased
    quick-GELU MLP ``int(hidden × mlp_ratio)`` wide (the config's ``intermediate_size`` is overwritten);
    the hub's ``width`` and ``layers`` override hidden_size and num_hidden_layers. Two biased 3×3
    stride-2 Conv2d downsamplers (hidden -> 2·hidden -> 4·hidden), then one projection to the text
    width (``projector_bias``, default False).
    """
    h = _int(v, "width", where, _int(v, "hidden_size", where, 1536))
    ratio = v.get("mlp_ratio", 8960 / 1536)
    if isinstance(ratio, bool) or not isinstance(ratio, int | float) or ratio <= 0:
        raise SpecError(f"{where}: vision_config field 'mlp_ratio' must be a positive number, got {ratio!r}")
    i, patch = int(h * ratio), _patch(v, where, 14)
    embed = (
        _int(v, "num_channels", where, 3) * patch * patch * h + (_int(v, "image_size", where, 728) // patch) ** 2 * h
    )
    layer = _vit_layer(h, i) + 2 * h
    downsamplers = _linear(h * 9, 2 * h) + _linear(2 * h * 9, 4 * h)
    layers = _int(v, "layers", where, _int(v, "num_hidden_layers", where, 47))
    projector = _linear(4 * h, text_hidden, bool(top.get("projector_bias", False)))
    return embed + 2 * h + layers * layer + downsamplers + projector


def _llava_onevision(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """LLaVA-OneVision: a SigLIP encoder, a two-layer projector and an ``image_newline`` vector.

    ``vision_tower`` is SigLIP's vision model (its head only with ``vision_use_head``); the
    ``multi_modal_projector`` maps hidden × the number of ``vision_feature_layer`` layers to the
    text width and then text -> text (biases with ``multimodal_projector_bias``); ``image_newline``
    is one vector at the text width.
    """
    return _siglip_tower(v, where) + _llava_projector(top, v, text_hidden, where) + text_hidden


def _hyperclovax_vision(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """HyperCLOVA X Vision v2: Qwen2.5-VL's ViT and merger, then one biased projection to the text width."""
    out = _int(v, "out_hidden_size", where, text_hidden)
    return _qwen2_5_vl(top, v, text_hidden, where) + _linear(out, text_hidden)


def _lighton_ocr(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """LightOnOCR: Mistral 3's Pixtral encoder, merger and projector, the projections without biases."""
    return _pixtral({**top, "multimodal_projector_bias": False}, v, text_hidden, where)


def _glm_ocr(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """GLM-OCR: GLM-4V's tower without its position table, with q/k norms and a biased MLP.

    A biased Conv3d over (temporal_patch_size, patch, patch) patches; blocks of two RMSNorms,
    qkv and proj (biases with ``attention_bias``), RMS q/k norms of hidden / num_heads and a gated
    MLP ``intermediate_size`` wide (biases with ``attention_bias``); a final RMSNorm; a biased
    Conv2d merging spatial_merge_size² patches to ``out_hidden_size``; the merger (bias-free
    projection, LayerNorm, bias-free gated MLP out_hidden_size × in_channels wide). No projector.
    """
    h, out = _int(v, "hidden_size", where, 1024), _int(v, "out_hidden_size", where, 1536)
    i, heads = _int(v, "intermediate_size", where, 4096), _int(v, "num_heads", where, 16)
    if not heads:
        raise SpecError(f"{where}: vision_config field 'num_heads' must be positive")
    patch, channels = _patch(v, where, 14), _int(v, "in_channels", where, 3)
    frames, merge = _int(v, "temporal_patch_size", where, 2), _int(v, "spatial_merge_size", where, 2)
    bias = bool(v.get("attention_bias", True))
    block = 2 * h + _linear(h, 3 * h, bias) + _linear(h, h, bias) + 2 * (h // heads)
    block += 2 * _linear(h, i, bias) + _linear(i, h, bias)
    embed = _linear(channels * frames * patch * patch, h)
    merger = out * out + 2 * out + 3 * out * out * channels
    return embed + _int(v, "depth", where, 24) * block + h + _linear(h * merge * merge, out) + merger


def _molmo2(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Molmo2: a ViT (a linear patch embedding, a position per patch, LayerNorm blocks, no final norm), an adapter.

    The adapter pools the concatenated ``vision_feature_layer`` states with one attention (its
    q/k/v read ``len(layers)`` × its width) and projects them with a SwiGLU MLP to
    ``text_hidden_size``. A released checkpoint's config (``vit_config``, ``vit_layers``,
    ``image_num_pos``...) builds only the ViT layers up to the deepest one read, as transformers
    does: 25 of the 27 it declares.
    """
    found = top.get("adapter_config")
    a: dict[str, Any] = found if isinstance(found, dict) else {}
    read = a.get("vision_feature_layer", a.get("vit_layers", [24, 18]))
    depth = _int(v, "num_hidden_layers", where, 25)
    if not isinstance(read, list) or not read or not all(isinstance(i, int) and -depth <= i < depth for i in read):
        raise SpecError(f"{where}: adapter_config field 'vision_feature_layer' must list layers of the {depth}")
    if "vision_config" not in top:  # the released checkpoints' keys: the unread last layers are not built
        depth = max(i % depth for i in read) + 1
    legacy = {"patch_size": "image_patch_size", "image_size": "image_default_input_size"}
    v = {**{new: v[old] for new, old in legacy.items() if old in v}, **v}
    patch, (height, width) = _patch(v, where, 14), _pair(v, "image_size", where, 378)
    positions = _int(v, "num_position_embeddings", where, v.get("image_num_pos", (height // patch) * (width // patch)))
    h, i = _int(v, "hidden_size", where, 1152), _int(v, "intermediate_size", where, 4304)
    layer = 2 * 2 * h + _molmo2_attention(v, h, h, where) + _linear(h, i) + _linear(i, h)
    tower = positions * h + _linear(patch * patch * _int(v, "num_channels", where, 3), h) + depth * layer
    ah, ai, bias = _int(a, "hidden_size", where, 1152), _int(a, "intermediate_size", where, 18944), a.get("mlp_bias")
    projector = 2 * _linear(ah, ai, bool(bias)) + ai * _int(a, "text_hidden_size", where, 3584)
    return tower + _molmo2_attention(a, ah * len(read), ah, where) + projector


def _molmo2_attention(cfg: dict[str, Any], width_in: int, width_out: int, where: str) -> int:
    """Molmo2's vision attention: q/k/v from ``width_in``, o to ``width_out``, biased (``attention_bias``)."""
    heads, kv = _int(cfg, "num_attention_heads", where, 16), _int(cfg, "num_key_value_heads", where, 16)
    hd, bias = _int(cfg, "head_dim", where, 72), bool(cfg.get("attention_bias", True))
    q_k_v = _linear(width_in, heads * hd, bias) + 2 * _linear(width_in, kv * hd, bias)
    return q_k_v + _linear(heads * hd, width_out, bias)


def _video_llama_3(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Video-LLaMA 3: a SigLIP encoder with rotary positions (no position table, no head), a two-layer projector."""
    h = _int(v, "hidden_size", where, 768)
    tower = _siglip_tower({**v, "num_patches": 0}, where, head=False)  # num_patches 0: no position table
    return tower + _linear(h, text_hidden) + _linear(text_hidden, text_hidden)


def _hunyuan_vl(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """HunyuanVL: a biased patch convolution, a class and a position per patch of ``max_image_size``, SigLIP layers.

    No post-norm; the merger folds spatial_merge_size² patches with a convolution (h -> 2h), a 1x1
    one (2h -> 4h) and a linear to the text width, between two RMSNorms, with learned newline
    (4h), begin, end and separator (text width) vectors.
    """
    h, i, patch = _int(v, "hidden_size", where, 1152), _int(v, "intermediate_size", where, 4304), _patch(v, where, 16)
    merge, t = _int(v, "spatial_merge_size", where, 2), _int(v, "text_hidden_size", where, text_hidden)
    positions = (_int(v, "max_image_size", where, 2048) // patch) ** 2 + 1
    layer = _vit_layer(h, i)
    tower = _linear(_int(v, "num_channels", where, 3) * patch * patch, h) + positions * h
    merger = _linear(h * merge * merge, 2 * h) + _linear(2 * h, 4 * h) + _linear(4 * h, t) + 4 * h + 3 * t + h + t
    return tower + _int(v, "num_hidden_layers", where, 27) * layer + merger


def _minimax_m3_vl(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """MiniMax-M3-VL: a bias-free Conv3d patch embedding, a pre-LayerNorm, CLIP layers, a two-stage projector.

    The projector maps each patch to the text width (a biased GELU MLP through
    ``projector_hidden_size``), then folds spatial_merge_size² of them into one token with a
    second such MLP.
    """
    h, i, patch = _int(v, "hidden_size", where, 1280), _int(v, "intermediate_size", where, 5120), _patch(v, where, 14)
    embed = _int(v, "num_channels", where, 3) * _int(v, "temporal_patch_size", where, 2) * patch * patch * h
    layer = _vit_layer(h, i)
    mid, merge = _int(top, "projector_hidden_size", where, 6144), _int(v, "spatial_merge_size", where, 2)
    per_patch = _linear(h, mid) + _linear(mid, text_hidden)
    projector = per_patch + _linear(text_hidden * merge * merge, mid) + _linear(mid, text_hidden)
    return embed + 2 * h + _int(v, "num_hidden_layers", where, 32) * layer + projector


def _cosmos3_edge(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Cosmos 3 Edge: a SigLIP 2 encoder without a head, a merger over spatial_merge_size² patches.

    The merger: a LayerNorm per patch, then a biased GELU MLP through ``projector_hidden_size``.
    """
    h, merge = _int(v, "hidden_size", where, 1152), _int(v, "spatial_merge_size", where, 2)
    mid = _int(top, "projector_hidden_size", where, 11520)
    merger = 2 * h + _linear(h * merge * merge, mid) + _linear(mid, text_hidden)
    defaults = {"hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27, "num_patches": 256}
    return _siglip_tower({**defaults, **v}, where, head=False) + merger  # Cosmos3EdgeVisionConfig's defaults


def _muse_glimmer(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Muse Glimmer: a bias-free linear patch embedding, a position table, MoonViT layers, an adapter.

    Pre- and post-LayerNorms around Kimi K2.5's layers; the adapter reads ``out_hidden_size``
    features (merge_size² patches), two bias-free linears through ``projector_hidden_size``, then
    one to the text width (its norm has no weight).
    """
    h, i, patch = _int(v, "hidden_size", where, 1536), _int(v, "intermediate_size", where, 8960), _patch(v, where, 14)
    embed = _int(v, "patch_temporal", where, 2) * 3 * patch * patch * h
    embed += _int(v, "pos_emb_height", where, 32) * _int(v, "pos_emb_width", where, 32) * h + 2 * 2 * h
    layer = _vit_layer(h, i)
    wide, mid = _int(top, "out_hidden_size", where, 6144), _int(top, "projector_hidden_size", where, 4096)
    return embed + _int(v, "num_hidden_layers", where, 50) * layer + (wide + mid + text_hidden) * mid


# Vision towers that are timm code (transformers' TimmWrapperModel builds them by architecture name
# and timm's model_args, not from config fields): their parameters as timm 1.0.31 builds them on the
# meta device (transformers 5.25's Gemma3nForConditionalGeneration and FastVlmForConditionalGeneration
# give the same counts).
TIMM_TOWERS: dict[tuple[str, tuple[tuple[str, Any], ...]], int] = {
    ("mobilenetv5_300m_enc", ()): 294_126_912,  # Gemma 3n's MobileNet-V5
    ("fastvit_mci3", (("inference_mode", True),)): 122_714_208,  # FastVLM's FastViTHD, re-parameterised
    ("fastvit_mci3", ()): 122_875_584,  # ... with its training-time branches
}


def _timm_tower(v: dict[str, Any], where: str, default: str) -> int:
    """A timm tower's parameters from TIMM_TOWERS (architecture and model_args); one that is not there is refused."""
    arch, args = v.get("architecture", default), v.get("model_args") or {}
    try:
        found = TIMM_TOWERS.get((str(arch), tuple(sorted(args.items())))) if isinstance(args, dict) else None
    except TypeError:  # an unhashable model_args value
        found = None
    if found is None:
        named = f"{str(arch)[:60]!r}" + (f" with model_args {str(args)[:60]}" if args else "")
        raise SpecError(f"{where}: vision_config architecture {named} is timm code rooftop has not counted")
    return found


def _gemma3n(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Gemma 3n: a timm MobileNet-V5 (TIMM_TOWERS) and a USM audio tower, each with an embedder.

    Each embedder: a table of the tower's ``vocab_size`` rows, two norms and a projection to the
    text width (its last norm has no weight). ``vision_params`` holds both towers: neither is on
    the text path.
    """
    found = top.get("audio_config")
    a: dict[str, Any] = found if isinstance(found, dict) else {}

    def embedder(cfg: dict[str, Any], width: int) -> int:
        return _int(cfg, "vocab_size", where, 128) * width + 2 * width + width * text_hidden

    vision = _timm_tower(v, where, "mobilenetv5_300m_enc") + embedder(v, _int(v, "hidden_size", where, 2048))
    return vision + _usm_audio(a, where) + embedder(a, _int(a, "hidden_size", where, 1536))


def _usm_audio(a: dict[str, Any], where: str) -> int:
    """Gemma 3n's conformer audio tower (transformers' Gemma3nAudioEncoder) from its ``audio_config``.

    Two sub-sampling convolutions (``sscp_conv_*``, each with a cumulative group norm of one weight
    per channel) and a projection of their flattened output, then ``conf_num_hidden_layers``
    conformer blocks: two feed-forwards (hidden -> 4·hidden -> hidden, two norms each), attention
    (q/k/v, a relative-position projection and an output projection, hidden² each, a scale per
    head feature, two norms), a light convolution (hidden -> 2·hidden, a depthwise kernel, a norm,
    hidden -> hidden, its pre-norm) and a final norm.
    """
    h = _int(a, "hidden_size", where, 1536)
    channels = a.get("sscp_conv_channel_size", [128, 32])
    kernels = a.get("sscp_conv_kernel_size", [[3, 3], [3, 3]])
    strides = a.get("sscp_conv_stride_size", [[2, 2], [2, 2]])
    shapes_ok = all(isinstance(x, list) and len(x) == 2 for x in (channels, kernels, strides))
    if not shapes_ok or not all(isinstance(k, list) and len(k) == 2 for k in (*kernels, *strides)):
        raise SpecError(f"{where}: audio_config sscp_conv_* must give two convolutions")
    freq, convs, previous = _int(a, "input_feat_size", where, 128), 0, 1
    for c, (kh, kw), (_, sw) in zip(channels, kernels, strides, strict=True):
        if not all(isinstance(x, int) and x > 0 for x in (c, kh, kw, sw)):
            raise SpecError(f"{where}: audio_config sscp_conv_* must be positive integers")
        convs += previous * c * kh * kw + c
        freq, previous = (freq + 2 - kw) // sw + 1, c
    heads = max(_int(a, "conf_num_attention_heads", where, 8), 1)
    block = 24 * h * h + 9 * h + h * _int(a, "conf_conv_kernel_size", where, 5) + h // heads
    return convs + previous * freq * h + _int(a, "conf_num_hidden_layers", where, 12) * block


def _fast_vlm(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """FastVLM: a timm FastViTHD and a two-layer projector (vision width -> text width -> text width)."""
    bias = bool(top.get("multimodal_projector_bias", True))
    width = _int(v, "hidden_size", where, 3072)
    return (
        _timm_tower(v, where, "fastvit_mci3")
        + _linear(width, text_hidden, bias)
        + _linear(text_hidden, text_hidden, bias)
    )


def _fuyu(top: dict[str, Any], v: dict[str, Any], text_hidden: int, where: str) -> int:
    """Fuyu: no encoder; each image patch (patch_size² × num_channels values) is projected to the text width."""
    patch, channels = _int(top, "patch_size", where, 30), _int(top, "num_channels", where, 3)
    return _linear(patch * patch * channels, text_hidden)


TOWERS: dict[str, Callable[[dict[str, Any], dict[str, Any], int, str], int]] = {
    "aya_vision": _aya_vision,
    "cohere2_vision": _cohere2_vision,
    "cosmos3_edge": _cosmos3_edge,
    "cosmos3_omni": _qwen3_vl,  # Cosmos 3 Omni: Qwen3-VL's tower
    "exaone4_5": _qwen2_5_vl,  # EXAONE 4.5: Qwen2.5-VL's ViT with grouped KV heads
    "fuyu": _fuyu,
    "gemma3": _siglip,
    "fast_vlm": _fast_vlm,
    "gemma3n": _gemma3n,
    "gemma4": _gemma4,
    "glm46v": _glm4v,
    "glm4v": _glm4v,
    "glm4v_moe": _glm4v,
    "glm_ocr": _glm_ocr,
    "glmga": _glm4v,  # GLM-GA: GLM-4V's tower
    "hunyuan_vl": _hunyuan_vl,
    "hyperclovax_vision_v2": _hyperclovax_vision,
    "idefics3": _idefics3,
    "internvl": _internvl,
    "kimi_k25": _kimi_k25,
    "lfm2_vl": _lfm2_vl,
    "lfm3_vl": _lfm3_vl,
    "lighton_ocr": _lighton_ocr,
    "llama4": _llama4,
    "llava": _clip_llava,
    "llava_next": _clip_llava,
    "llava_next_video": _clip_llava,
    "llava_onevision": _llava_onevision,
    "llava_onevision1_5": _llava_onevision1_5,
    "minicpm_ocr": _minicpm_v,  # MiniCPM-OCR: MiniCPM-V 4.6's classes
    "minicpmv4_6": _minicpm_v,
    "minicpmv4_7": _minicpm_v,
    "minimax_m3_vl": _minimax_m3_vl,
    "mistral3": _pixtral,
    "mllama": _mllama,
    "molmo2": _molmo2,
    "muse_glimmer": _muse_glimmer,
    "ovis2_5": _ovis2_5,
    "paddleocr_vl": _paddleocr_vl,
    "paligemma": _paligemma,
    "qianfan_ocr": _internvl,  # Qianfan-OCR: InternVL's InternViT and projector
    "qwen2_5_vl": _qwen2_5_vl,
    "qwen2_vl": _qwen2_vl,
    "qwen3_5": _qwen3_vl,
    "qwen3_5_moe": _qwen3_vl,
    "qwen3_vl": _qwen3_vl,
    "qwen3_vl_moe": _qwen3_vl,
    "shieldgemma2": _siglip,  # ShieldGemma 2: Gemma 3's SigLIP tower and projector
    "smolvlm": _idefics3,
    "step3p7": _step3p7,
    "video_llama_3": _video_llama_3,
    "video_llava": _clip_llava,
    "vipllava": _clip_llava,
}


def vision_params(top: dict[str, Any], vision: dict[str, Any], text_hidden: int, where: str) -> int | None:
    """Parameters of the vision encoder and its projector; None when the tower family is not known."""
    tower = TOWERS.get(str(top.get("model_type", "")))
    return tower(top, vision, text_hidden, where) if tower else None
