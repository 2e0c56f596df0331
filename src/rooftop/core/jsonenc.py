"""The one JSON encoder for artifacts, logs and ``--json`` output.

msgspec turns dataclasses, msgspec Structs, enums (by value), tuples and numpy scalars or
arrays into JSON and writes NaN and ±inf as null (strict JSON: jq and browsers reject the
``NaN``/``Infinity`` literals). The text layout is the standard library's (``indent``, ASCII
escapes, ``1e+16``), so artifacts written before this encoder existed keep their bytes.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any


def _hook(obj: Any) -> Any:
    if obj is None or isinstance(obj, tuple):  # only as a dict key (as values msgspec writes them itself)
        return str(obj)
    for base in (str, int, float):  # subclasses msgspec does not take (torch.__version__ is a str subclass)
        if isinstance(obj, base):
            return base(obj)
    if hasattr(obj, "tolist") and callable(obj.tolist):  # numpy array or scalar
        return obj.tolist()
    if hasattr(obj, "item") and callable(obj.item):
        return obj.item()
    raise NotImplementedError(f"cannot write {type(obj).__name__} as JSON")


@cache
def _codec() -> tuple[Any, Any]:
    import msgspec

    return msgspec.json.Encoder(enc_hook=_hook), msgspec.json.Decoder()


def to_plain(obj: Any) -> Any:
    """``obj`` as JSON-ready builtins: dicts, lists, str, int, float, bool, None (never NaN or inf)."""
    encoder, decoder = _codec()
    return decoder.decode(encoder.encode(obj))


def dumps(obj: Any, indent: int | None = None) -> str:
    """Strict JSON text of ``obj`` (non-finite numbers → null); ``indent`` as json.dumps."""
    return json.dumps(to_plain(obj), indent=indent, allow_nan=False)
