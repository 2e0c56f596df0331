"""The survey, kept: transformers' default config of each listed model type, through rooftop.

tests/data/default_configs.json (scripts/count_default_configs.py, transformers 5.25.0) holds the
default ``to_dict()`` of 108 model types with their meta-device parameter count, of 35 multimodal
types (the whole image-text-to-text model: the vision tower and projector of models/vision.py
beside the text model), and of 29 types rooftop refuses with the phrase its one-line refusal names. The stored part runs without
transformers; the last tests re-run the survey live when transformers is importable (CI has it):
the default config of today's transformers, through rooftop and through a meta-device build. A
type the installed transformers does not have yet (5.25.0's Ergo, MiniCPM5-MoE, Param2 and
Kolibri 1.1 where pip resolves 5.24.0) is skipped live, naming the version; its stored count is
still asserted above.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from rooftop.errors import SpecError
from rooftop.models.hf_config import spec_from_config

REPO = Path(__file__).resolve().parents[2]
STORED = json.loads((REPO / "tests" / "data" / "default_configs.json").read_text(encoding="utf-8"))
COUNTED, MULTIMODAL, REFUSED = STORED["counted"], STORED["multimodal"], STORED["refused"]


def test_the_list_covers_the_families_fixed_by_the_survey():
    fixed = {"afmoe", "apertus1p5_text", "aria_text", "axk1", "beam", "exaone_moe", "gemma3", "glm4_moe_lite"}
    fixed |= {"hy_v3", "jais2", "nanochat", "olmo_hybrid", "kimi_linear", "bailing_hybrid", "ernie4_5_moe"}
    fixed |= {"mamba", "mamba2", "falcon_mamba", "lara_mini"}  # the survey of 2026-12-02
    fixed |= {"ergo", "minicpm5_moe", "param2moe"}  # transformers 5.25.0's new decoders
    fixed |= {"gemma3n_text"}  # AltUp, LAuReL and MatFormer MLP widths (2026-12-03)
    assert fixed <= set(COUNTED) and len(COUNTED) == 109 and len(REFUSED) == 28 and "kolibri1_1" in REFUSED
    tied_by_the_wrapper = {"internvl", "mistral3", "qwen3_vl_moe", "kimi_k25", "hyperclovax_vision_v2", "lighton_ocr"}
    towers = {"llava_onevision1_5", "ovis2_5", "molmo2", "minicpm_ocr", "video_llama_3", "minimax_m3_vl"}
    towers |= {"cosmos3_edge", "muse_glimmer"}
    towers |= {"gemma3n", "fast_vlm"}  # timm towers (MobileNet-V5, FastViTHD); Gemma 3n's conformer (2026-12-03)
    assert towers | tied_by_the_wrapper <= set(MULTIMODAL) and len(MULTIMODAL) == 49


@pytest.mark.parametrize("model_type", sorted(COUNTED))
def test_default_config_count_equals_transformers(model_type):
    entry = COUNTED[model_type]
    assert spec_from_config(entry["config"], model_type).param_count() == entry["params"]


@pytest.mark.parametrize("model_type", sorted(MULTIMODAL))
def test_multimodal_default_config_count_equals_transformers(model_type):
    # the whole image-text-to-text model: the vision tower and projector (models/vision.py) + the text model
    entry = MULTIMODAL[model_type]
    spec = spec_from_config(entry["config"], model_type)
    assert spec.vision_params > 0 and spec.param_count() == entry["params"]


@pytest.mark.parametrize("model_type", sorted(REFUSED))
def test_default_config_refused_in_one_line_naming_the_feature(model_type):
    entry = REFUSED[model_type]
    with pytest.raises(SpecError, match=entry["refusal"]) as err:
        spec_from_config(entry["config"], model_type)
    assert "\n" not in str(err.value)


def _known(model_type):
    """Skip a live test for a type the installed transformers does not define (it came in a later release)."""
    transformers = pytest.importorskip("transformers")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    if model_type not in CONFIG_MAPPING_NAMES:
        pytest.skip(f"transformers {transformers.__version__} has no {model_type!r} (stored: {STORED['transformers']})")
    if model_type in _script().NEEDS_TIMM:  # its vision tower is timm code (its config imports timm too)
        pytest.importorskip("timm")


def _script():
    spec = importlib.util.spec_from_file_location("count_defaults", REPO / "scripts" / "count_default_configs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["count_defaults"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("section", "model_type"),
    [("counted", t) for t in sorted(COUNTED)] + [("multimodal", t) for t in sorted(MULTIMODAL)],
)
def test_live_default_config_count_equals_a_meta_build(section, model_type):
    # the causal LM of a counted type; the whole image-text-to-text model of a multimodal one
    _known(model_type)
    pytest.importorskip("torch")
    script = _script()
    built = script.meta_count(model_type) if section == "counted" else script.meta_count_multimodal(model_type)
    assert spec_from_config(script.default_config(model_type), model_type).param_count() == built


@pytest.mark.parametrize("model_type", sorted(REFUSED))
def test_live_default_config_still_refused(model_type):
    _known(model_type)
    with pytest.raises(SpecError, match=REFUSED[model_type]["refusal"]):
        spec_from_config(_script().default_config(model_type), model_type)
