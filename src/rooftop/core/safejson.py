"""Bounded readers for JSON and TOML input: size, nesting depth and string length checked first.

Every file rooftop reads from a user (config.json, catalog TOML, run artifacts, datasets, traces)
passes through here, so that a hostile input ends in one line naming the file, never in a
``RecursionError`` or minutes of work. The checks run on the raw bytes before any decoder sees
them:

- size: at most ``max_bytes`` are read (the file is not read whole when it is larger);
- depth: brackets outside strings are matched by removing innermost pairs one round at a time,
  so ``max_depth`` rounds of C-speed ``bytes.replace`` bound the nesting; a decoder recursing
  past Python's stack never runs;
- strings: no string longer than ``max_string`` characters (escapes counted as written).

The caller passes its own error class (``SpecError``, ``CatalogError``, ``ArtifactError``...), so
the CLI still maps the failure to exit code 2. JSON's ``NaN``/``Infinity`` are decoded as floats
(the schema step that follows names the field holding them); numbers too large for a float
become ``inf`` and are refused there the same way.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rooftop.errors import RooftopError

MAX_DEPTH = 64  # real configs nest 4 deep, artifacts 6, traces 8
MAX_STRING_CHARS = 1 << 20  # 1 Mi characters: a model name, a prompt, a kernel name
MAX_FILE_BYTES = 64 << 20  # a config.json, a catalog, an artifact, a dataset

_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_TOML_SKIP = re.compile(
    rb'"""[\s\S]*?"""' rb"|'''[\s\S]*?'''" rb'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"' rb"|'[^'\n]*'" rb"|#[^\n]*"
)
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))


def read_bounded(path: str | Path, error: type[RooftopError], max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """Read at most ``max_bytes`` of ``path``; a missing, unreadable or larger file raises ``error``."""
    p = Path(path)
    try:
        if p.is_dir():
            raise error(f"{p}: is a folder, not a file")
        with p.open("rb") as fh:
            data = fh.read(max_bytes + 1)
    except FileNotFoundError as exc:
        raise error(f"{p}: cannot read: no such file") from exc
    except OSError as exc:
        raise error(f"{p}: cannot read: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise error(f"{p}: larger than {max_bytes:,} bytes; refusing to read it")
    return data


def _depth_exceeds(brackets: bytes, max_depth: int) -> bool:
    """True when the bracket sequence nests deeper than ``max_depth`` (unbalanced input: False)."""
    rest = brackets.replace(b"{", b"[").replace(b"}", b"]")
    for _ in range(max_depth):
        if not rest:
            return False
        shorter = rest.replace(b"[]", b"")
        if len(shorter) == len(rest):
            return False  # unbalanced: the decoder reports where
        rest = shorter
    return b"[]" in rest


def check_json_bytes(
    data: bytes, where: str, error: type[RooftopError], max_depth: int = MAX_DEPTH, max_string: int = MAX_STRING_CHARS
) -> None:
    """Raise ``error`` if ``data`` nests deeper than ``max_depth`` or holds a string over ``max_string``."""
    longest = max(map(len, _JSON_STRING.findall(data)), default=0) - 2
    if longest > max_string:
        raise error(f"{where}: a string of {longest:,} characters (at most {max_string:,} allowed)")
    if _depth_exceeds(_JSON_STRING.sub(b"", data).translate(None, _NOT_BRACKETS), max_depth):
        raise error(f"{where}: nested deeper than {max_depth} levels")


def loads_json(
    data: bytes | str,
    where: str,
    error: type[RooftopError],
    max_depth: int = MAX_DEPTH,
    max_string: int = MAX_STRING_CHARS,
) -> Any:
    """Decode JSON text after the depth and string checks; any failure is one ``error`` line."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    check_json_bytes(raw, where, error, max_depth, max_string)
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise error(f"{where}: not UTF-8 text (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise error(f"{where}: not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    except (RecursionError, ValueError) as exc:  # backstop: a decoder limit the scan did not foresee
        raise error(f"{where}: cannot decode JSON ({type(exc).__name__})") from exc


def read_json(
    path: str | Path,
    error: type[RooftopError],
    max_bytes: int = MAX_FILE_BYTES,
    max_depth: int = MAX_DEPTH,
    max_string: int = MAX_STRING_CHARS,
) -> Any:
    """Read and decode a JSON file with every bound applied; errors name the file."""
    return loads_json(read_bounded(path, error, max_bytes), str(path), error, max_depth, max_string)


def loads_toml(
    data: bytes | str,
    where: str,
    error: type[RooftopError],
    max_depth: int = MAX_DEPTH,
    max_string: int = MAX_STRING_CHARS,
) -> dict[str, Any]:
    """Decode TOML text after the depth and size checks; any failure is one ``error`` line."""
    import tomllib  # not at import: most commands read no TOML of the user's (core/packaged.py)

    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    skipped = _TOML_SKIP.findall(raw)
    longest = max(map(len, skipped), default=0)
    if longest > max_string:
        raise error(f"{where}: a string or comment of {longest:,} characters (at most {max_string:,} allowed)")
    if _depth_exceeds(_TOML_SKIP.sub(b"", raw).translate(None, _NOT_BRACKETS), max_depth):
        raise error(f"{where}: nested deeper than {max_depth} levels")
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise error(f"{where}: not UTF-8 text (byte {exc.start})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{where}: not valid TOML ({exc})") from exc
    except (RecursionError, ValueError) as exc:
        raise error(f"{where}: cannot decode TOML ({type(exc).__name__})") from exc


def read_toml(
    path: str | Path,
    error: type[RooftopError],
    max_bytes: int = MAX_FILE_BYTES,
    max_depth: int = MAX_DEPTH,
) -> dict[str, Any]:
    """Read and decode a TOML file with every bound applied; errors name the file."""
    return loads_toml(read_bounded(path, error, max_bytes), str(path), error, max_depth)
