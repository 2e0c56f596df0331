"""Vision towers counted from vision_config (models/vision.py), by hand from transformers' shapes."""

from rooftop.models.vision import vision_params


def test_gemma3_siglip_tower_and_projector():
    vision = {
        "hidden_size": 1152,
        "image_size": 896,
        "intermediate_size": 4304,
        "num_hidden_layers": 27,
        "patch_size": 14,
    }
    h, i = 1152, 4304
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h
    tower = (3 * 14 * 14 * h + h) + 64 * 64 * h + 2 * h + 27 * layer  # patches, 4096 positions, post-norm
    projector = h * 2560 + h  # mm_input_projection_weight + mm_soft_emb_norm
    assert vision_params({"model_type": "gemma3"}, vision, 2560, "x") == tower + projector == 419_816_304


def test_unknown_tower_is_none():
    assert vision_params({"model_type": "somevlm"}, {}, 64, "x") is None
