import pytest

from rooftop.errors import SpecError
from rooftop.models.presets import load_preset, preset_names, resolve_model


def test_required_presets_ship():
    required = {
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
        "llama-3.1-8b",
        "llama-3.1-70b",
        "llama-3.1-405b",
        "llama-3.2-1b",
        "mistral-7b",
        "mixtral-8x7b",
        "qwen2.5-7b",
        "qwen2.5-72b",
        "qwen3-30b-a3b",
        "deepseek-v3",
        "gemma-2-9b",
        "phi-3-mini",
        "gpt2",
    }
    assert required <= set(preset_names())


def test_each_preset_names_its_source():
    for name in preset_names():
        source = load_preset(name).source
        assert source.endswith("config.json") or source.startswith("rooftop:")  # published, or rooftop's own


def test_exact_names_only():
    with pytest.raises(SpecError, match="did you mean: llama-3.1-8b"):
        load_preset("llama-3.1-8")  # no fuzzy match: a near miss is an error with suggestions


def test_resolve_path(tmp_path):
    with pytest.raises(SpecError, match="no such config.json"):
        resolve_model(str(tmp_path / "nothing"))
    assert resolve_model("gpt2").tied_embeddings
