"""Count the parameters of every vendored config.json with transformers on the meta device.

Writes tests/data/configs/expected_params.json, which the tests read (they never need transformers
for the count). Each model is built from its config with ``torch.device("meta")`` (no memory, no
weights, no network), by the class its ``architectures`` names when transformers has it, else by
``AutoModelForCausalLM``. Counted: ``sum(p.numel() for p in model.parameters())`` — tied weights
once, buffers (rotary tables, masks) excluded. ``auto_map`` is dropped when transformers knows the
``model_type`` natively; a remote-code config whose AutoConfig class transformers ships under the
same name (rooftop's ``AUTO_CONFIG_FAMILIES``: Kimi-K2's DeepseekV3Config) is built as that family
(``counted_as``); any other config that only remote code can build is recorded as such. Never
``trust_remote_code``.

Run: PYTHONPATH=src python scripts/count_config_params.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1] / "tests" / "data" / "configs"
VISION_PREFIXES = ("vision", "visual", "multi_modal_projector", "mm_projector", "embed_vision")


def build(config: dict[str, Any]) -> Any:
    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM

    from rooftop.models.families import auto_config_family

    clean = {k: v for k, v in config.items() if not k.startswith("_") and k not in ("auto_map", "quantization_config")}
    model_type = clean.pop("model_type")
    model_type = auto_config_family(config, model_type) or model_type
    hf_config = AutoConfig.for_model(model_type, **clean)
    arch = (config.get("architectures") or [""])[0]
    cls = getattr(transformers, arch, None)
    with torch.device("meta"):
        if cls is not None:
            return cls._from_config(hf_config)
        return AutoModelForCausalLM.from_config(hf_config)


def _counted_as(config: dict[str, Any]) -> str | None:
    from rooftop.models.families import auto_config_family

    return auto_config_family(config, str(config.get("model_type", "")))


def count(path: Path) -> dict[str, Any]:
    import transformers

    config = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Any] = {"transformers": transformers.__version__, "buffers": "excluded"}
    try:
        model = build(config)
    except Exception as exc:  # recorded, not raised: the test reads what happened
        out["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        return out
    out["class"] = type(model).__name__
    if (family := _counted_as(config)) is not None:
        out["counted_as"] = family
    out["params"] = sum(p.numel() for p in model.parameters())
    vision = sum(
        p.numel()
        for name, p in model.named_parameters()
        if any(part.startswith(VISION_PREFIXES) for part in name.split("."))
    )
    if vision:
        out["vision_params"] = vision
    return out


def main() -> int:
    wanted = set(sys.argv[1:])
    target = ROOT / "expected_params.json"
    results: dict[str, Any] = json.loads(target.read_text()) if target.exists() else {}
    for path in sorted(ROOT.glob("*/config.json")):
        family = path.parent.name
        if wanted and family not in wanted:
            continue
        results[family] = count(path)
        print(family, results[family], flush=True)
    target.write_text(json.dumps(dict(sorted(results.items())), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
