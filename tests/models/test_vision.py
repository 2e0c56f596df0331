"""Vision towers counted from vision_config (models/vision.py), by hand from transformers' shapes."""

import pytest

from rooftop.errors import SpecError
from rooftop.models.vision import vision_params


def test_gemma3_siglip_tower_and_projector():
    vision = {
        "hidden_size": 1152,
        "image_size": 896,
        "intermediate_size": 4304,
        "num_hidden_layers": 27,
        "patch_size": 14,
        "vision_use_head": False,  # as Gemma 3's checkpoints say
    }
    h, i = 1152, 4304
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h
    tower = (3 * 14 * 14 * h + h) + 64 * 64 * h + 2 * h + 27 * layer  # patches, 4096 positions, post-norm
    projector = h * 2560 + h  # mm_input_projection_weight + mm_soft_emb_norm
    assert vision_params({"model_type": "gemma3"}, vision, 2560, "x") == tower + projector == 419_816_304
    # without the key, SiglipVisionConfig's default (True) builds the attention-pooling head: probe,
    # in_proj (3h x h + 3h), out_proj (h x h + h), LayerNorm (2h), MLP (h x i + i + i x h + h)
    head = h + (3 * h * h + 3 * h) + (h * h + h) + 2 * h + (h * i + i) + (i * h + h)
    del vision["vision_use_head"]
    assert vision_params({"model_type": "gemma3"}, vision, 2560, "x") == 419_816_304 + head


def test_gemma4_tower_and_projector():
    # Gemma 4 (26B-A4B and 31B): 27 layers of 1152, 16 heads and 16 KV heads of 72, no biases.
    # Per layer q, k, v, o 4 x 1152 x 1152 = 5,308,416; q and k norms 2 x 72 (v's has no weight);
    # gated MLP 3 x 1152 x 4304 = 14,874,624; four norms 4,608 -> 20,187,792, x 27 = 545,070,384.
    # Patches 3 x 16 x 16 x 1152 = 884,736; position table 2 x 10,240 x 1152 = 23,592,960; the
    # projector 1152 x 2816 = 3,244,032 (its norm has no weight) -> 572,792,112, transformers' count
    vision = {
        "hidden_size": 1152,
        "intermediate_size": 4304,
        "num_hidden_layers": 27,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "head_dim": 72,
        "patch_size": 16,
        "position_embedding_size": 10240,
    }
    assert vision_params({"model_type": "gemma4"}, vision, 2816, "x") == 572_792_112


def test_unknown_tower_is_none():
    assert vision_params({"model_type": "somevlm"}, {}, 64, "x") is None


def test_an_unknown_tower_is_refused_not_dropped():
    import pytest

    from rooftop.errors import SpecError
    from rooftop.models.hf_config import spec_from_config

    text = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4}
    config = {"model_type": "somevlm", "text_config": {**text, "intermediate_size": 128, "vocab_size": 10}}
    assert spec_from_config(config, "x").vision_params == 0  # no vision_config: a text model
    with pytest.raises(SpecError, match="vision tower \\('siglip'\\) of this multimodal config is not modelled"):
        spec_from_config({**config, "vision_config": {"model_type": "siglip"}}, "x")


def test_llava_clip_tower():
    # CLIP ViT-L/14-336: class token + patches + 577 positions + 2 LayerNorms, 24 layers, projector 1024->4096->4096
    h, i = 1024, 4096
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h
    tower = h + 3 * 14 * 14 * h + 577 * h + 2 * h + 24 * layer + 2 * h
    projector = (h * 4096 + 4096) + (4096 * 4096 + 4096)
    vision = {"hidden_size": h, "intermediate_size": i, "num_hidden_layers": 24, "image_size": 336, "patch_size": 14}
    assert vision_params({"model_type": "llava"}, vision, 4096, "x") == tower + projector == 324_487_168
    # LLaVA-NeXT-Video: LLaVA-NeXT's image_newline (4096); Video-LLaVA: an image and a video tower;
    # VipLlava: five feature layers concatenated (5120 wide) behind a LayerNorm. transformers 5.25.0's
    # defaults: 7,062,906,880, 7,365,754,880 and 7,079,690,240 with their text models
    assert vision_params({"model_type": "llava_next_video"}, vision, 4096, "x") == 324_487_168 + 4096
    assert vision_params({"model_type": "video_llava"}, vision, 4096, "x") == 2 * tower + projector
    vip = {"model_type": "vipllava", "vision_feature_layer": [-2, -5, -8, -11, 6]}
    wide = (5 * h * 4096 + 4096) + (4096 * 4096 + 4096) + 2 * 5 * h
    assert vision_params(vip, vision, 4096, "x") == tower + wide == 341_274_624


def test_llama4_scout_tower_with_its_published_vision_config():
    # the vision_config of Llama-4-Scout's Hub config (the vendored copy carries the text part only);
    # issue 12 measured its tower at 871.9 M with transformers
    vision = {
        "hidden_size": 1408,
        "image_size": 336,
        "intermediate_size": 5632,
        "num_hidden_layers": 34,
        "patch_size": 14,
        "projector_input_dim": 4096,
        "projector_output_dim": 4096,
        "vision_output_dim": 4096,
    }
    h, i = 1408, 5632
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h
    embed = h + (24 * 24 + 1) * h + 3 * 14 * 14 * h + 4 * h  # class token, positions, patches, 2 LayerNorms
    adapter = i * 4096 + 4096 * 4096  # pixel-shuffle MLP
    assert (
        vision_params({"model_type": "llama4"}, vision, 5120, "x")
        == (embed + 34 * layer + adapter + 4096 * 5120)
        == 871_932_416
    )


def test_mllama_tiled_tower_and_projector():
    # Llama 3.2 11B Vision (560 px tiles of 14 px patches): 40 x 40 patches + the class token = 1,601.
    # Patch conv 3 x 14 x 14 x 1280 = 752,640 (no bias); class embedding 1,280; the gated position
    # embedding: gate 1 + 1,601 x 1280 = 2,049,280 + a tile table of 9 aspect-ratio ids (8 + 1) x
    # 4 tiles x 1,601 x 1280 = 73,774,080; pre/post tile embeddings 2 x (9 x 4 x 1280 + a gate) =
    # 92,162; pre/post LayerNorms 5,120. A layer: q, k, v, o 4 x 1280^2 = 6,553,600; MLP 1280 x 5120
    # + 5120 + 5120 x 1280 + 1280 = 13,113,600; two LayerNorms 5,120 -> 19,672,320, x (32 + 8) =
    # 786,892,800, + 2 gates x 8 global layers. Projector 7680 x 4096 + 4096 = 31,461,376.
    vision = {"hidden_size": 1280, "image_size": 560, "patch_size": 14, "max_num_tiles": 4, "vision_output_dim": 7680}
    embed = 752_640 + 1_280 + 1 + 2_049_280 + 73_774_080 + 92_162 + 5_120
    expected = embed + 786_892_800 + 16 + 31_461_376
    assert vision_params({"model_type": "mllama"}, vision, 4096, "x") == expected == 895_028_755
    # the shrunk IPEX config (text width 1024): transformers 5.24.0 counts 871,432,723 under vision*
    # and multi_modal_projector (tests/data/configs/expected_params.json); the projector is 7680 x 1024 + 1024
    assert (
        vision_params({"model_type": "mllama"}, vision, 1024, "x") == expected - 31_461_376 + 7_865_344 == 871_432_723
    )


def test_glm4v_tower_merger_and_projector():
    # GLM-4.1V/4.5V/4.6V (Glm4vVisionConfig's defaults): patches of 2 frames x 14 x 14 x 3 channels
    # into 1536 (biased Conv3d: 1,806,336 + 1,536) and a 24 x 24 position table (884,736) = 2,692,608.
    # A block: fused qkv 1536 x 4608 (no bias), proj 1536^2, a gated MLP 3 x 1536 x 4096, two RMS norms
    # -> 28,314,624, x 24 = 679,550,976. Two more norms 3,072; the 2 x 2 merge Conv2d 1536 x 4 x 4096 +
    # 4096 = 25,169,920; the merger: proj 4096^2, LayerNorm 8,192, gated MLP 3 x 4096 x 13696 =
    # 185,081,856. Sum 892,498,432, transformers 5.24.0's count under model.visual.
    assert vision_params({"model_type": "glm4v_moe"}, {}, 4096, "x") == 892_498_432
    assert vision_params({"model_type": "glm4v"}, {"depth": 0}, 4096, "x") == 892_498_432 - 679_550_976


def test_qwen2_vl_tower_and_merger():
    # Qwen2-VL (Qwen2VLVisionConfig's defaults): patches 3 x 2 x 14 x 14 into 1280, no bias: 1,505,280.
    # A block: two LayerNorms 5,120, qkv 1280 x 3840 + 3840, proj 1280^2 + 1280, fc1 1280 x 5120 + 5120,
    # fc2 5120 x 1280 + 1280 -> 19,677,440, x 32 = 629,678,080. Merger: LayerNorm 2,560, 5120 x 5120 +
    # 5120, 5120 x 3584 + 3584 -> 44,575,744. Sum 675,759,104, transformers 5.24.0's model.visual.
    assert vision_params({"model_type": "qwen2_vl"}, {"hidden_size": 3584}, 8192, "x") == 675_759_104


# SigLIP layer: q, k, v, out (h^2 + h each), fc1 (h x i + i), fc2 (i x h + h), two LayerNorms (4h);
# the encoder: patches (3 x p^2 x h + h), one position per patch, a post-LayerNorm (2h). Totals below
# are transformers 5.24.0's meta-device counts of each family's default config (vision_tower and
# multi_modal_projector, or connector).


def test_paligemma_siglip_and_projection():
    # h 1152, i 4096: a layer 14,760,064, x 27 = 398,521,728; patches 3 x 14^2 x 1152 + 1152 = 678,528,
    # 16^2 positions 294,912, post-norm 2,304; no pooling head; projection 1152 x 2048 + 2048 = 2,361,344
    vision = {"hidden_size": 1152, "intermediate_size": 4096, "num_hidden_layers": 27, "patch_size": 14}
    vision |= {"image_size": 224, "vision_use_head": False}
    expected = 398_521_728 + 678_528 + 294_912 + 2_304 + 2_361_344
    assert (
        vision_params({"model_type": "paligemma", "projection_dim": 2048}, vision, 2048, "x") == expected == 401_858_816
    )


def test_pixel_shuffle_projectors():
    # Aya Vision: SigLIP (1152, 4304, 26 layers of 15,239,504, 384 px / 14, no head) = 397,747,744; 2 x 2
    # patches fold to 4608: LayerNorm 9,216, linear_1 4608 x 8192 + 8192, SwiGLU halves it, linear_2
    # 4096 x 8192 + 8192 -> 71,328,768
    aya = {"hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 26, "patch_size": 14}
    aya |= {"image_size": 384, "vision_use_head": False}
    assert vision_params({"model_type": "aya_vision"}, aya, 8192, "x") == 397_747_744 + 71_328_768 == 469_076_512
    # Command A Vision: SigLIP with its pooling head (27 layers of 12,399,744, 512 px / 16) = 349,259,520;
    # no LayerNorm; linear_1 4608 x 36864 + 36864, linear_2 18432 x 8192 + 8192 -> 320,909,312
    cohere = {"hidden_size": 1152, "intermediate_size": 3072, "num_hidden_layers": 27, "patch_size": 16}
    cohere |= {"image_size": 512}
    top = {"model_type": "cohere2_vision", "alignment_intermediate_size": 36864}
    assert vision_params(top, cohere, 8192, "x") == 349_259_520 + 320_909_312 == 670_168_832
    # LFM2-VL: SigLIP 2 (768, 12 layers of 7,087,872, 256 positions, a head) = 92,930,304; LayerNorm over
    # 3072, 3072 x 2560 + 2560, 2560 x 2560 + 2560 -> 14,429,184
    lfm = {"hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12, "patch_size": 16, "num_patches": 256}
    assert vision_params({"model_type": "lfm2_vl"}, lfm, 2560, "x") == 92_930_304 + 14_429_184 == 107_359_488
    # SmolVLM / Idefics3: no head (12 layers of 12,399,744, 224 px / 32) = 152,395,776; connector
    # 4608 x 4096, no bias = 18,874,368
    smol = {"hidden_size": 1152, "intermediate_size": 3072, "num_hidden_layers": 12, "patch_size": 32}
    for kind in ("smolvlm", "idefics3"):
        assert vision_params({"model_type": kind}, smol, 4096, "x") == 152_395_776 + 18_874_368


def test_internvl_tower_and_projector():
    # InternVLVisionConfig's defaults (InternViT-300M): 448 px / 14 = 32 x 32 patches; patches 3 x 14^2 x
    # 1024 + 1024 = 603,136, a class token 1,024, 1,025 positions 1,049,600. A layer: q, k, v 3 x 1024^2
    # (no bias), output 1024^2 + 1024, two LayerNorms 4,096, two layer scales 2,048, fc1 4,198,400, fc2
    # 4,195,328 -> 12,595,200, x 24 = 302,284,800; mean pooling, no final norm. Projector over 2 x 2
    # patches (downsample_ratio 0.5): LayerNorm 8,192, 4096 x 4096 + 4096 twice -> 33,570,816.
    vision = {"image_size": [448, 448], "patch_size": [14, 14]}
    expected = 603_136 + 1_024 + 1_049_600 + 302_284_800 + 33_570_816
    assert vision_params({"model_type": "internvl"}, vision, 4096, "x") == expected == 337_509_376
    # InternViT-6B's switches: RMS norms (a weight of 1024, not 2 x 1024) and RMS q/k norms (2 x 1024)
    rms = {**vision, "norm_type": "rms_norm"}
    assert vision_params({"model_type": "internvl"}, rms, 4096, "x") == expected - 24 * 2 * 1024
    qk = {**vision, "use_qk_norm": True}
    assert vision_params({"model_type": "internvl"}, qk, 4096, "x") == expected + 24 * 2 * 1024
    with pytest.raises(SpecError, match="'downsample_ratio' must be a number in"):
        vision_params({"model_type": "internvl", "downsample_ratio": 0}, vision, 4096, "x")


def test_llava_onevision_1_5_rice_vit_tower_and_merger():
    # LlavaOnevision15VisionConfig() (transformers 5.25.0): 24 blocks of 1024, 16 heads, MLP 4096,
    # 14-pixel patches, 2x2 merge to 4096. Patches 3 x 14 x 14 x 1024 (no bias) = 602,112; class
    # token 1024 and its rotary frequencies 1024 / 16 / 2 = 32; pre-LayerNorm 2,048. A block: two
    # LayerNorms 4,096, qkv 3,148,800, proj 1,049,600, fc1 4,198,400, fc2 4,195,328 = 12,596,224.
    # Merger: LayerNorm 2,048 + 2 x (4096 x 4096 + 4096) = 33,564,672. transformers: 336,479,264
    vision = {"depth": 24, "hidden_size": 1024, "intermediate_size": 4096, "num_heads": 16, "patch_size": 14}
    vision |= {"spatial_merge_size": 2, "out_hidden_size": 4096, "in_channels": 3}
    total = 602_112 + 1_024 + 32 + 2_048 + 24 * 12_596_224 + 33_564_672
    assert vision_params({"model_type": "llava_onevision1_5"}, vision, 4096, "x") == total == 336_479_264
    with pytest.raises(SpecError, match="num_heads"):
        vision_params({"model_type": "llava_onevision1_5"}, {**vision, "num_heads": 0}, 4096, "x")


def test_ovis_2_5_siglip_tower_visual_tokenizer_and_table():
    # Ovis2_5VisionConfig() (transformers 5.25.0): a SigLIP tower of 27 layers of 1152 without a
    # head (413,534,448: patches 885,888, 32 x 32 positions 1,179,648, layers 27 x 15,239,504, the
    # post-LayerNorm 2,304); the tokenizer 4608 -> 65,532 words (65,536 less 4 indicators, no bias)
    # 301,971,456 and its LayerNorm 131,064; the table 65,536 x 4096 = 268,435,456. transformers: 984,072,424
    vision = {"hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27, "patch_size": 16}
    vision |= {"image_size": 512, "spatial_merge_size": 2, "vocab_size": 65536, "num_visual_indicator_tokens": 4}
    tower = 885_888 + 1_179_648 + 27 * 15_239_504 + 2_304
    total = tower + 4608 * 65_532 + 2 * 65_532 + 65_536 * 4096
    assert vision_params({"model_type": "ovis2_5"}, vision, 4096, "x") == total == 984_072_424
    with pytest.raises(SpecError, match="num_visual_indicator_tokens"):
        vision_params({"model_type": "ovis2_5"}, {**vision, "num_visual_indicator_tokens": 65536}, 4096, "x")


def test_kimi_k25_moonvit_tower_and_projector():
    # Kimi_K25VisionConfig's defaults (transformers 5.25.0), Kimi K2.5's sizes; DeepSeek-V3 text of 7168
    vision = {"hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27, "patch_size": 14}
    vision |= {"pos_emb_height": 64, "pos_emb_width": 64, "merge_kernel_size": [2, 2]}
    h, i = 1152, 4304
    embed = (3 * 14 * 14 * h + h) + 64 * 64 * h  # the biased patch convolution, the 64 x 64 position table
    layer = 2 * 2 * h + 4 * (h * h + h) + (h * i + i) + (i * h + h)  # two LayerNorms, q/k/v/proj, fc1/fc2
    tower = embed + 27 * layer + 2 * h  # 416,866,032 with the final LayerNorm: transformers' vision_tower
    wide = 4 * h  # 2 x 2 patches folded: 4608
    projector = 2 * 1152 + (wide * wide + wide) + (wide * 7168 + 7168)  # pre_norm, two projections: 54,277,888
    assert vision_params({"model_type": "kimi_k25"}, vision, 7168, "x") == tower + projector == 471_143_920
    # the published config.json names the same sizes as Moonshot's remote code does
    published = {"vt_hidden_size": 1152, "vt_intermediate_size": 4304, "vt_num_hidden_layers": 27, "patch_size": 14}
    published |= {
        "init_pos_emb_height": 64,
        "init_pos_emb_width": 64,
        "mm_hidden_size": 1152,
        "merge_kernel_size": [2, 2],
    }
    assert vision_params({"model_type": "kimi_k25"}, published, 7168, "x") == 471_143_920
    assert vision_params({"model_type": "kimi_k25"}, {**published, "vt_num_hidden_layers": 26}, 7168, "x") == (
        471_143_920 - layer
    )


def test_lfm3_vl_conv_attention_tower_and_projector():
    # Lfm3VlVisionConfig's defaults (LFM3-VL-2B); layer_types default: conv for 0, 1 and odd layers,
    # attention for 2, 4, ..., 12 -> 6 attention and 8 conv layers
    vision = {
        "hidden_size": 1024,
        "intermediate_size": 2560,
        "in_channels": 3,
        "patch_size": 16,
        "temporal_patch_size": 2,
        "spatial_merge_size": 2,
        "num_hidden_layers": 14,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "conv_kernel_size": 3,
    }
    h, i, d = 1024, 2560, 1024 // 16
    embed = 3 * 2 * 16 * 16 * h + h  # patch_embed (no bias) + embedding_norm
    common = 3 * h * i + 2 * h  # w1, w3, w2 (no biases) + operator_norm, ffn_norm
    attention = h * 16 * d + 2 * h * 8 * d + 16 * d * h + 2 * d  # q, k, v, out_proj + q_norm, k_norm
    conv = h * 3 * h + 3 * 3 * h + h * h  # in_proj, depthwise spatial_conv, out_proj
    tower_ = embed + 14 * common + 6 * attention + 8 * conv  # 164,206,336
    projector = 2 * h + (4 * h * 4096 + 4096) + (4096 * 2048 + 2048)  # LayerNorm, linear_1, linear_2: 25,174,016
    assert vision_params({"model_type": "lfm3_vl"}, vision, 2048, "x") == tower_ + projector == 189_380_352


def test_exaone4_5_gqa_vit_and_merger():
    # Exaone4_5_VisionConfig's defaults: 32 blocks of 3584, 16 query heads and 8 KV heads of 224
    vision = {
        "depth": 32,
        "hidden_size": 3584,
        "intermediate_size": 3420,
        "num_heads": 16,
        "num_key_value_heads": 8,
        "in_channels": 3,
        "patch_size": 14,
        "temporal_patch_size": 2,
        "spatial_merge_size": 2,
        "out_hidden_size": 3584,
    }
    h, i, kv_dim = 3584, 3420, 8 * 224
    embed = 3 * 2 * 14 * 14 * h  # Conv3d patch_embed, no bias
    block = 2 * h + (h * (h + 2 * kv_dim) + h + 2 * kv_dim)  # norm1, norm2 (RMS); qkv (biased)
    block += (h * h + h) + 2 * (h * i + i) + (i * h + h)  # proj; gate_proj, up_proj, down_proj (biased)
    wide = 4 * h
    merger = h + (wide * wide + wide) + (wide * 3584 + 3584)  # ln_q (RMS), mlp.0, mlp.2 to out_hidden_size
    assert vision_params({"model_type": "exaone4_5"}, vision, 4096, "x") == embed + 32 * block + merger == 2_671_868_672


def test_paddleocr_vl_siglip_tower_and_projector():
    # PaddleOCRVisionConfig's defaults: SigLIP-So400m-like, 27 layers of 1152, 384 / 14 -> 27 x 27 positions
    vision = {
        "hidden_size": 1152,
        "intermediate_size": 4304,
        "num_hidden_layers": 27,
        "num_attention_heads": 16,
        "num_channels": 3,
        "image_size": 384,
        "patch_size": 14,
        "spatial_merge_size": 2,
    }
    h, i = 1152, 4304
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h  # q/k/v/out_proj, fc1, fc2, two LayerNorms
    encoder = (3 * 14 * 14 * h + h) + 27 * 27 * h + 27 * layer + 2 * h  # patches, 729 positions, post_layernorm
    wide = 4 * h
    projector = 2 * h + (wide * wide + wide) + (wide * 1024 + 1024)  # pre_norm, linear_1, linear_2
    assert vision_params({"model_type": "paddleocr_vl"}, vision, 1024, "x") == encoder + projector == 438_947_440


def test_minicpmv4_6_siglip_window_merger_and_merger():
    # MiniCPMV4_6VisionConfig's defaults written out; text width 4096 (Qwen3.5 text default)
    vision = {
        "hidden_size": 768,
        "intermediate_size": 3072,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "num_channels": 3,
        "image_size": 224,
        "patch_size": 16,
        "window_kernel_size": [2, 2],
    }
    h, i, text = 768, 3072, 4096
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * 2 * h  # q/k/v/out, fc1, fc2, two LayerNorms
    encoder = (3 * 16 * 16 * h + h) + (224 // 16) ** 2 * h + 12 * layer + 2 * h  # conv, 196 positions, post-LN
    # vit_merger: attention + layer_norm1 at h; pre_norm, linear_1, linear_2 over 2x2-folded widths 4h -> 4i -> h
    vit_merger = 4 * (h * h + h) + 2 * h + 2 * 4 * h + (4 * h * 4 * i + 4 * i) + (4 * i * h + h)
    merger = 2 * 4 * h + (4 * h * 4 * h + 4 * h) + (4 * h * text + text)  # one DownsampleMLP (merger_times 1)
    assert (
        encoder == 85_797_120 and vit_merger == 49_569_024 and merger == 22_033_408
    )  # transformers: 135,366,144 tower
    assert (
        vision_params({"model_type": "minicpmv4_6"}, vision, text, "x") == encoder + vit_merger + merger == 157_399_552
    )
    assert vision_params({"model_type": "minicpmv4_7"}, vision, text, "x") == 157_399_552  # 4.7: the same tower
    two = {"model_type": "minicpmv4_6", "merger_times": 2}  # a second DownsampleMLP, back to the ViT width first
    assert vision_params(two, vision, text, "x") == 157_399_552 + 2 * 4 * h + (4 * h * 4 * h + 4 * h) + (4 * h * h + h)


def test_step3p7_tower_downsamplers_and_projector():
    # Step3p7VisionConfig's defaults; Step 3.7 text of 4096. intermediate = int(1536 x 8960/1536) = 8960
    vision = {
        "hidden_size": 1536,
        "num_hidden_layers": 47,
        "num_channels": 3,
        "image_size": 728,
        "patch_size": 14,
        "mlp_ratio": 8960 / 1536,
    }
    h, i, TEXT_HIDDEN = 1536, 8960, 4096
    embed = 3 * 14 * 14 * h + 52 * 52 * h + 2 * h  # bias-free patch Conv2d, 2704 positions, pre_layernorm
    layer = (
        2 * 2 * h + 2 * h + 4 * (h * h + h) + (h * i + i) + (i * h + h)
    )  # 2 LayerNorms, lambda_1/2, q/k/v/out, fc1/fc2
    downsamplers = (h * 9 * 2 * h + 2 * h) + (2 * h * 9 * 4 * h + 4 * h)  # 3x3 convs: 1536 -> 3072 -> 6144
    projector = 4 * h * TEXT_HIDDEN  # projector_bias False
    total = embed + 47 * layer + downsamplers + projector
    assert vision_params({"model_type": "step3p7"}, vision, TEXT_HIDDEN, "x") == total == 1_981_014_784
    # the hub's aliases: width / layers override hidden_size / num_hidden_layers
    alias = {**vision, "width": h, "layers": 47, "hidden_size": 1}
    assert vision_params({"model_type": "step3p7"}, alias, TEXT_HIDDEN, "x") == 1_981_014_784


def test_llava_onevision_siglip_tower_projector_and_newline():
    # transformers 5.25.0's default: SigLIP so400m/14-384 without its head, text width 4096
    vision = {
        "hidden_size": 1152,
        "intermediate_size": 4304,
        "num_hidden_layers": 26,
        "num_attention_heads": 16,
        "image_size": 384,
        "patch_size": 14,
        "vision_use_head": False,
    }
    h, i, t = 1152, 4304, 4096
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h  # q/k/v/out, fc1, fc2, two LayerNorms
    siglip = (3 * 14 * 14 * h + h) + 27 * 27 * h + 2 * h + 26 * layer  # patches, 729 positions, post-norm
    projector = (h * t + t) + (t * t + t)  # linear_1, linear_2
    newline = t  # image_newline
    assert (
        vision_params({"model_type": "llava_onevision"}, vision, t, "x") == siglip + projector + newline == 419_255_840
    )


def test_hyperclovax_vision_v2_qwen2_5_vl_tower_and_projector():
    # transformers 5.25.0's default: Qwen2.5-VL's ViT (32 blocks of 3584), text width 4096
    vision = {
        "model_type": "qwen2_5_vl_vision",
        "depth": 32,
        "hidden_size": 3584,
        "intermediate_size": 3420,
        "num_heads": 16,
        "in_channels": 3,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
        "out_hidden_size": 3584,
    }
    h, i, out, t = 3584, 3420, 3584, 4096
    block = 2 * h + (h * 3 * h + 3 * h) + (h * h + h) + 2 * (h * i + i) + (i * h + h)  # norms, qkv, proj, gate/up, down
    embed = 3 * 2 * 14 * 14 * h  # bias-free Conv3d
    wide = 4 * h  # 2x2 patches merged
    merger = h + (wide * wide + wide) + (wide * out + out)  # ln_q, mlp.0, mlp.2
    projector = out * t + t
    expected = embed + 32 * block + merger + projector
    assert vision_params({"model_type": "hyperclovax_vision_v2"}, vision, t, "x") == expected == 3_097_709_312


def test_lighton_ocr_pixtral_tower_and_projector():
    # transformers 5.25.0's default: a Pixtral encoder (24 layers of 1024, 14-pixel patches), text width 1024
    vision = {
        "model_type": "pixtral",
        "hidden_size": 1024,
        "intermediate_size": 4096,
        "num_hidden_layers": 24,
        "num_attention_heads": 16,
        "head_dim": 64,
        "num_channels": 3,
        "image_size": 1540,
        "patch_size": 14,
    }
    h, i, t = 1024, 4096, 1024
    layer = 4 * h * h + 3 * h * i + 2 * h  # q/k/v/o, gate/up/down, attention_norm + ffn_norm (no biases)
    encoder = 3 * 14 * 14 * h + h + 24 * layer  # patch_conv, ln_pre
    projector = h + (4 * h) * h + h * t + t * t  # norm, patch_merger (2x2 -> h), linear_1, linear_2
    assert vision_params({"model_type": "lighton_ocr"}, vision, t, "x") == encoder + projector == 409_597_952


def test_glm_ocr_tower():
    # transformers 5.25.0's default: 24 blocks of 1024, 16 heads, merged to 1536
    vision = {
        "model_type": "glm_ocr_vision",
        "depth": 24,
        "hidden_size": 1024,
        "attention_bias": True,
        "num_heads": 16,
        "in_channels": 3,
        "image_size": 336,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
        "out_hidden_size": 1536,
        "intermediate_size": 4096,
    }
    h, i, out = 1024, 4096, 1536
    embed = 3 * 2 * 14 * 14 * h + h  # patch_embed.proj, a biased Conv3d
    # norm1/norm2, qkv, proj, q_norm/k_norm (head_dim 64), gate/up, down: all biased
    block = 2 * h + (h * 3 * h + 3 * h) + (h * h + h) + 2 * 64 + 2 * (h * i + i) + (i * h + h)
    downsample = (h * 2 * 2) * out + out  # Conv2d over 2x2 patches
    merger = out * out + 2 * out + 3 * out * (3 * out)  # proj, post_projection_norm, gate/up/down (out x in_channels)
    expected = embed + 24 * block + h + downsample + merger  # h: post_layernorm
    assert vision_params({"model_type": "glm_ocr"}, vision, 1024, "x") == expected == 434_120_192


MOLMO2_RELEASED = {  # a config in the released checkpoints' keys, Molmo2-4B's text shapes (Qwen3-4B's)
    "model_type": "molmo2",
    "tie_word_embeddings": False,
    "text_config": {
        "model_type": "molmo2_text",
        "hidden_size": 2560,
        "intermediate_size": 9728,
        "num_hidden_layers": 36,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 151936,
        "additional_vocab_size": 128,
        "qkv_bias": False,
        "use_qk_norm": True,
        "qk_norm_type": "qwen3",
        "max_position_embeddings": 16384,
    },
    "vit_config": {
        "hidden_size": 1152,
        "intermediate_size": 4304,
        "num_hidden_layers": 27,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "head_dim": 72,
        "image_default_input_size": [378, 378],
        "image_patch_size": 14,
        "image_num_pos": 729,
    },
    "adapter_config": {
        "vit_layers": [-3, -9],
        "hidden_size": 1152,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "head_dim": 72,
        "intermediate_size": 9728,
        "text_hidden_size": 2560,
    },
}


def test_molmo2_released_config_tower_adapter_and_text():
    from rooftop.models.hf_config import spec_from_config

    h, i = 1152, 4304
    attention = 4 * (h * h + h)  # q, k, v, o: 16 heads x 72 = 1152, biased
    layer = 4 * h + attention + (h * i + i) + (i * h + h)  # two LayerNorms, a GELU MLP
    # 729 positions, a linear patch embedding (14 x 14 x 3), and 25 of the 27 layers declared:
    # vit_layers [-3, -9] read layers 24 and 18, so transformers builds 0..24 (no final norm)
    tower = 729 * h + (588 * h + h) + 25 * layer
    pooling = 3 * (2 * h * h + h) + (h * h + h)  # q/k/v read the two layers concatenated (2304)
    projector = 2 * h * 9728 + 9728 * 2560  # SwiGLU, bias-free, to the text width
    vision = tower + pooling + projector
    assert vision == 439_117_264
    d, v = 2560, 151936
    text_layer = 2 * d * 4096 + 2 * d * 1024 + 2 * 128 + 3 * d * 9728 + 2 * d  # q/o, k/v, per-head q/k norms
    text = (v + 128) * d + 36 * text_layer + d + v * d  # 128 extra embedding rows, the head has vocab_size
    spec = spec_from_config(MOLMO2_RELEASED, "molmo2")
    assert (spec.vision_params, spec.idle_params) == (vision, 128 * d)
    assert spec.param_count() == text + vision == 4_850_869_200  # transformers 5.25.0 (meta device): the same
    olmo = {**MOLMO2_RELEASED, "text_config": {**MOLMO2_RELEASED["text_config"], "qk_norm_type": "olmo"}}
    # OLMo-style norms over all heads: 4096 + 1024 weights a layer instead of 2 x 128
    assert spec_from_config(olmo, "molmo2").param_count() == 4_850_869_200 + 36 * (5120 - 256) == 4_851_044_304
    bad = {**MOLMO2_RELEASED, "adapter_config": {"vit_layers": [27]}}
    with pytest.raises(SpecError, match="vision_feature_layer"):
        spec_from_config(bad, "molmo2")


def test_hunyuan_vl_tower_and_merger():
    h, i = 1152, 4304  # HunYuanVLVisionConfig's defaults; patches of 16, max_image_size 2048
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h  # biased q/k/v/o, GELU MLP, 2 LayerNorms
    tower = (3 * 16 * 16 * h + h) + ((2048 // 16) ** 2 + 1) * h  # biased patch conv; a class + 128² positions
    # merger: 2x2 conv h -> 2h, 1x1 conv 2h -> 4h, linear 4h -> text width, newline (4h), begin/end/sep
    # (3 x 4096), an RMSNorm before (h) and after (4096)
    merger = (4 * h * 2 * h + 2 * h) + (2 * h * 4 * h + 4 * h) + (4 * h * 4096 + 4096) + 4 * h + 3 * 4096 + h + 4096
    # transformers 5.25.0, the default config with the text head_dim it leaves None set to 128: the same
    assert vision_params({"model_type": "hunyuan_vl"}, {}, 4096, "x") == tower + 27 * layer + merger == 471_369_200


def test_video_llama_3_tower_and_projector():
    h, i = 768, 3072  # VideoLlama3VisionConfig's defaults: rotary positions, so no position table, no head
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h
    tower = (3 * 16 * 16 * h + h) + 12 * layer + 2 * h  # patch conv, 12 layers, post-LayerNorm
    projector = (h * 4096 + 4096) + (4096 * 4096 + 4096)  # two biased linears to the text width
    # transformers 5.25.0's default config (text width 4096), tower and projector: the same
    assert vision_params({"model_type": "video_llama_3"}, {}, 4096, "x") == tower + projector == 105_577_728


def test_minimax_m3_vl_tower_and_two_stage_projector():
    h, i = 1280, 5120  # MiniMaxM3VLVisionConfig's defaults; text width 6144, projector_hidden_size 6144
    embed = 3 * 2 * 14 * 14 * h + 2 * h  # bias-free Conv3d over 2 frames of 14 x 14 patches, pre-LayerNorm
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h  # CLIP layers
    # per patch h -> 6144 -> text width, then 2 x 2 patches (4 x 6144 wide) -> 6144 -> text width, all biased
    projector = (h * 6144 + 6144) + (6144 * 6144 + 6144) + (4 * 6144 * 6144 + 6144) + (6144 * 6144 + 6144)
    # transformers 5.25.0's default config, tower and projector: the same
    assert (
        vision_params({"model_type": "minimax_m3_vl"}, {}, 6144, "x") == embed + 32 * layer + projector == 865_567_232
    )


def test_cosmos3_edge_siglip2_tower_and_merger():
    h, i = 1152, 4304  # Cosmos3EdgeVisionConfig's defaults: SigLIP 2 (patches of 16, 256 positions), no head
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h
    tower = (3 * 16 * 16 * h + h) + 256 * h + 27 * layer + 2 * h  # linear patch embedding, post-LayerNorm
    merger = 2 * h + (4 * h * 11520 + 11520) + (11520 * 2048 + 2048)  # LayerNorm, 2 x 2 patches -> 11520 -> 2048
    # transformers 5.25.0's default config, tower and merger: the same
    assert vision_params({"model_type": "cosmos3_edge"}, {}, 2048, "x") == tower + merger == 489_342_704


def test_cosmos3_edge_text_is_llama_with_a_relu2_mlp():
    from rooftop.models.hf_config import spec_from_config

    # Cosmos3EdgeTextMLP: fc1 -> ReLU² -> fc2, no gate; rooftop had read it as Llama (28 x 2048 x 9216 too many)
    tiny = {"model_type": "cosmos3_edge_text", "hidden_size": 64, "intermediate_size": 256, "num_hidden_layers": 2}
    tiny |= {"num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100}
    layer = 2 * 64 * 64 + 2 * 64 * 32 + 2 * 64 * 256 + 2 * 64  # q/o, k/v, fc1/fc2, two norms
    assert spec_from_config(tiny, "x").param_count() == 2 * layer + 2 * 100 * 64 + 64 == 103_232


def test_muse_glimmer_tower_and_adapter():
    h, i = 1536, 8960  # MuseGlimmerVisionConfig's defaults: 50 MoonViT layers, patches of 14 over 2 frames
    embed = 2 * 3 * 14 * 14 * h + 32 * 32 * h + 4 * h  # bias-free linear patches, 32 x 32 positions, pre/post LN
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h
    adapter = 6144 * 4096 + 4096 * 4096 + 4096 * 6656  # out_hidden_size -> 4096 -> 4096 -> text width, bias-free
    # transformers 5.25.0's default config, tower and adapter: the same
    assert vision_params({"model_type": "muse_glimmer"}, {}, 6656, "x") == embed + 50 * layer + adapter == 1_921_845_760


def test_muse_glimmer_text_has_an_output_gate_and_four_norms():
    from rooftop.models.hf_config import spec_from_config

    # rooftop had read it as Llama: 52 x (6656 x 4096 gate + 2 x 6656 norms) = 1,418,366,976 short
    tiny = {"model_type": "muse_glimmer_text", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2}
    tiny |= {"num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100}
    tiny |= {"layer_types": ["sliding_attention", "full_attention"], "sliding_window": 32}
    layer = 3 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 128 + 4 * 64  # q, gate, o; k/v; gated MLP; four norms
    assert spec_from_config(tiny, "x").param_count() == 2 * layer + 2 * 100 * 64 + 64 == 95_296
