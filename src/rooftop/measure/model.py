"""Build a real PyTorch model from a config with random weights, through transformers.

``AutoModelForCausalLM.from_config`` is what users run, and every architecture transformers
knows works. Random weights profile like trained ones (same shapes, kernels and bytes); MoE
routing is the exception, so ``weights`` loads real safetensors when a folder has them.
Never ``trust_remote_code``: a config that needs remote code is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from rooftop.core.safejson import read_json
from rooftop.errors import MeasurementError, SpecError
from rooftop.models.config_schema import check_config

TORCH_DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


class BuiltModel(msgspec.Struct):
    """A model ready to run, with what it was built from."""

    model: Any  # transformers PreTrainedModel
    config: dict[str, Any]
    dtype: str
    device: str
    weights: str  # "random" or the safetensors folder


def read_config(path_or_dict: str | Path | dict[str, Any]) -> dict[str, Any]:
    """A config.json as a dict: a dict, a file, or a folder holding config.json."""
    if isinstance(path_or_dict, dict):
        return dict(path_or_dict)
    path = Path(path_or_dict)
    if path.is_dir():
        path = path / "config.json"
    data = read_json(path, SpecError)
    if not isinstance(data, dict):
        raise SpecError(f"{path}: a config.json must hold an object")
    return check_config(data, str(path))


def torch_dtype(name: str) -> Any:
    """The torch dtype for 'fp32' | 'bf16' | 'fp16'."""
    import torch

    if name not in TORCH_DTYPES:
        raise MeasurementError(f"profile dtype must be one of {', '.join(TORCH_DTYPES)}, not {name!r}")
    return getattr(torch, TORCH_DTYPES[name])


def build_model(config: dict[str, Any], dtype: str, device: str, weights: str | Path | None = None) -> BuiltModel:
    """Instantiate ``config`` with random weights (or ``weights``' safetensors) on ``device``."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    clean = {k: v for k, v in config.items() if not k.startswith("_")}
    if clean.get("auto_map"):
        raise SpecError("this config needs remote code (auto_map); rooftop never runs trust_remote_code")
    model_type = clean.pop("model_type", None)
    if not model_type:
        raise SpecError("config.json has no model_type; transformers cannot tell which architecture to build")
    clean.pop("torch_dtype", None)
    clean.pop("dtype", None)
    try:
        hf_config = AutoConfig.for_model(model_type, **clean)
        with torch.device(device):
            model = AutoModelForCausalLM.from_config(  # type: ignore[no-untyped-call]
                hf_config, attn_implementation="sdpa", dtype=torch_dtype(dtype), trust_remote_code=False
            )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SpecError(f"transformers cannot build model_type {model_type!r}: {_first_line(exc)}") from exc
    except RuntimeError as exc:
        raise MeasurementError(f"building the model failed: {_first_line(exc)}") from exc
    model.train(False)  # inference mode: no dropout, no autograd bookkeeping
    source = "random"
    if weights is not None:
        source = load_weights(model, Path(weights))
    return BuiltModel(model, config, dtype, device, source)


def load_weights(model: Any, folder: Path) -> str:
    """Load every *.safetensors file of ``folder`` into ``model`` (strict about shapes)."""
    from safetensors.torch import load_file

    files = sorted(folder.glob("*.safetensors")) if folder.is_dir() else []
    if not files:
        raise SpecError(f"{folder}: no *.safetensors files to load (without weights the model gets random ones)")
    state: dict[str, Any] = {}
    for f in files:
        state.update(load_file(str(f), device=str(next(model.parameters()).device)))
    try:
        result = model.load_state_dict(state, strict=False)
    except RuntimeError as exc:
        raise SpecError(f"{folder}: weights do not match the config: {_first_line(exc)}") from exc
    if result.missing_keys and len(result.missing_keys) == len(model.state_dict()):
        raise SpecError(f"{folder}: none of the weights' names match the model")
    return str(folder)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
