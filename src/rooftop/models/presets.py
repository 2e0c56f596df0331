"""Shipped presets: Hugging Face config.json files keyed by exact name.

Each file in ``presets/`` is the architecture part of the model's published config.json, with a
``_source`` line naming the repository it came from. Presets go through the same parser as a
user's config.json, so there is one path from a config to a ModelSpec.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from rooftop.core.safejson import read_json
from rooftop.errors import SpecError, did_you_mean, quoted
from rooftop.models.config_schema import check_config
from rooftop.models.hf_config import load_config_file, spec_from_config
from rooftop.models.spec import ModelSpec

# a plain file beside this module, not importlib.resources (core/packaged.py says why)
_FOLDER = Path(__file__).with_name("presets")


def _text(name: str) -> str:
    return (_FOLDER / f"{name}.json").read_text(encoding="utf-8")


def preset_names() -> list[str]:
    """Every shipped preset name, sorted."""
    return sorted(p.name.removesuffix(".json") for p in _FOLDER.iterdir() if p.name.endswith(".json"))


@functools.cache
def preset_aliases() -> dict[str, str]:
    """Lower-cased names and Hugging Face repo ids (from each preset's ``_source``) -> preset name."""
    aliases: dict[str, str] = {}
    for name in preset_names():
        aliases[name.lower()] = name
        text = _text(name)
        source = str(json.loads(text).get("_source", "")).split()
        if source and "/" in source[0]:
            aliases.setdefault(source[0].lower(), name)
    return aliases


def canonical_name(name: str) -> str | None:
    """The preset a name means: exact, any case ('Llama-3.1-8B'), or its HF repo id ('meta-llama/Llama-3.1-8B')."""
    key = name.strip().lower()
    aliases = preset_aliases()
    # an instruction-tuned variant has its base model's architecture (meta-llama/Llama-3.1-8B-Instruct)
    return aliases.get(key) or aliases.get(key.removesuffix("-instruct").removesuffix("-hf"))


def load_preset(name: str) -> ModelSpec:
    """A preset by name (any case) or HF repo id; a miss raises SpecError with suggestions."""
    names = preset_names()
    name = canonical_name(name) or name
    if name not in names:
        raise SpecError(f"unknown model preset {quoted(name)}{did_you_mean(name, names)}; see `rooftop models list`")
    text = _text(name)
    return spec_from_config(json.loads(text), name=name, where=f"preset {name}")


def resolve_model(name_or_path: str) -> ModelSpec:
    """A preset name (any case, or its HF repo id), or a path to a config.json file or a folder holding one."""
    if name_or_path in preset_names():
        return load_preset(name_or_path)
    path = Path(name_or_path)
    if not path.exists() and canonical_name(name_or_path):
        return load_preset(name_or_path)
    if path.exists() or "/" in name_or_path or name_or_path.endswith(".json"):
        return load_config_file(path)
    return load_preset(name_or_path)  # raises with "did you mean"


def config_dict(name_or_path: str) -> dict[str, Any]:
    """The raw config.json dict behind a preset name or a local path (for building the real model)."""
    preset = canonical_name(name_or_path) if not Path(name_or_path).exists() else None
    if preset:
        text = _text(preset)
        data: dict[str, Any] = json.loads(text)
        return data
    path = Path(name_or_path)
    if path.is_dir():
        path = path / "config.json"
    if not path.exists():
        resolve_model(name_or_path)  # raises with "did you mean"
    loaded = read_json(path, SpecError)
    if not isinstance(loaded, dict):
        raise SpecError(f"{path}: a config.json must hold an object")
    return check_config(loaded, str(path))
