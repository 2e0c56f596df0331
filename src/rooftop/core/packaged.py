"""What is shipped inside the package: its TOML files, parsed once per edit, and its plug-in modules.

Shipped data (these TOML files, the hardware catalog's CSV, the model presets) is read as plain
files beside its module, not through ``importlib.resources``: its first use imports zipfile,
tempfile, shutil, bz2 and lzma (~19 M instructions, ~5 ms of a cold start), and rooftop is
installed as plain files. The TOML files are read from a JSON image beside the bytecode.

tomllib is pure Python: importing it (its regexes compile at import) and parsing the four
vocabularies a trace import reads cost ~8 ms of a 0.3 s ``rooftop import`` on the 2-core box;
msgspec decodes their JSON images in ~0.1 ms. As Python does for a module's bytecode, the image
is written into the file's ``__pycache__`` folder (not when PYTHONDONTWRITEBYTECODE is set, nor
where the folder is read-only) and used while the TOML file keeps the size and modification time
it was made from. Only an image that decodes back to exactly the parsed tables is written (a
TOML date or a nan has no JSON twin). Users' own TOML files (catalog layers, kernel classes,
engine maps) are parsed every time.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from pathlib import Path
from typing import Any

import msgspec

__all__ = ["import_modules", "load_toml"]


class _Image(msgspec.Struct):
    stamp: list[int]  # the TOML file's st_mtime_ns and st_size
    data: dict[str, Any]


def load_toml(path: Path) -> dict[str, Any]:
    """The tables of the shipped TOML file ``path``, from its JSON image when that is current."""
    info = path.stat()
    stamp = [info.st_mtime_ns, info.st_size]
    image = path.parent / "__pycache__" / f"{path.name}.json"
    try:
        cached = msgspec.json.decode(image.read_bytes(), type=_Image)
        if cached.stamp == stamp:
            return cached.data
    except (OSError, msgspec.DecodeError):
        pass
    import tomllib

    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if not sys.dont_write_bytecode:
        _write(image, _Image(stamp, data))
    return data


def _write(image: Path, made: _Image) -> None:
    """Write ``made`` to ``image`` atomically when it reads back the same; a failure only costs the next parse."""
    blob = msgspec.json.encode(made)
    if msgspec.json.decode(blob, type=_Image) != made:
        return
    tmp = image.with_name(f"{image.name}.{os.getpid()}.tmp")
    try:
        image.parent.mkdir(exist_ok=True)
        tmp.write_bytes(blob)
        os.replace(tmp, image)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def import_modules(package: str) -> list[str]:
    """Import every module of ``package`` (the diagnosis rules, the operator formulas) in name order.

    Plug-in folders are found, never listed in code: each module registers itself when imported.
    The folder is read with ``os.listdir``; pkgutil's ``iter_modules`` cost ~1 ms of a cold start.
    Returns the modules' dotted names.
    """
    folders = importlib.import_module(package).__path__
    names = [
        f"{package}.{name[:-3]}"
        for folder in folders
        for name in sorted(os.listdir(folder))
        if name.endswith(".py") and name != "__init__.py"
    ]
    for name in names:
        importlib.import_module(name)
    return names
