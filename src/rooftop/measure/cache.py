"""Per-device JSON cache of measured roofs (and their calibration).

One file per device and thread count under ``$ROOFTOP_CACHE_DIR`` (default ``~/.cache/rooftop``):
``roofs-<device>-<model slug>-t<threads>.json`` holding schema ``rooftop.roofs/1``. A file that
cannot be read is reported, never silently replaced by made-up numbers.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from rooftop.core.artifact import roofs_from_dict, roofs_to_dict
from rooftop.core.atomic import write_atomic
from rooftop.core.roofs import Roofs
from rooftop.errors import ArtifactError
from rooftop.measure.identity import cpu_identity

SCHEMA = "rooftop.roofs/1"


def cache_dir() -> Path:
    """``$ROOFTOP_CACHE_DIR`` or ``~/.cache/rooftop``."""
    env = os.environ.get("ROOFTOP_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "rooftop"


def device_name(device: str) -> str:
    """The name that keys the cache: the CPU model, or the GPU's name (needs torch on CUDA)."""
    if device == "cuda":
        import torch

        return str(torch.cuda.get_device_name(0))
    return str(cpu_identity()["cpu_model"])


def cache_path(device: str, threads: int, name: str | None = None) -> Path:
    """Where the roofs of ``device`` measured with ``threads`` live."""
    slug = re.sub(r"[^a-z0-9]+", "-", (name or device_name(device)).lower()).strip("-")[:60]
    suffix = f"-t{threads}" if device == "cpu" else ""
    return cache_dir() / f"roofs-{device}-{slug}{suffix}.json"


def _read(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ArtifactError(f"{path}: unreadable roof cache ({exc}); delete it or run `rooftop roofs measure`") from exc
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ArtifactError(f"{path}: not a {SCHEMA} file; delete it or run `rooftop roofs measure`")
    return data


def load_roofs(device: str, threads: int) -> Roofs | None:
    """Cached roofs for this device and thread count, or None when never measured."""
    data = _read(cache_path(device, threads))
    if data is None:
        return None
    try:
        return roofs_from_dict(data["roofs"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ArtifactError(f"{cache_path(device, threads)}: malformed roof cache ({exc})") from exc


def save_roofs(roofs: Roofs, device: str, threads: int) -> Path:
    """Write ``roofs`` (dropping any calibration fitted against older roofs)."""
    path = cache_path(device, threads)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps({"schema": SCHEMA, "roofs": roofs_to_dict(roofs)}, indent=1), ArtifactError)
    return path


def load_calibration(device: str, threads: int) -> dict[str, Any] | None:
    """The calibration stored with this device's roofs, or None."""
    data = _read(cache_path(device, threads))
    return None if data is None else data.get("calibration")


def save_calibration(calibration: dict[str, Any], device: str, threads: int) -> Path:
    """Store ``calibration`` beside the roofs it was fitted against (the roofs must be cached)."""
    path = cache_path(device, threads)
    data = _read(path)
    if data is None:
        raise ArtifactError(f"no cached roofs at {path} to calibrate against; run `rooftop roofs measure` first")
    data["calibration"] = calibration
    write_atomic(path, json.dumps(data, indent=1), ArtifactError)
    return path
