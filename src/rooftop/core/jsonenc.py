"""The one JSON encoder for artifacts, logs and ``--json`` output.

msgspec turns msgspec Structs, dataclasses, enums (by value), tuples and numpy scalars or
arrays into builtins. NaN and ±inf become null (strict JSON: jq and browsers reject the
``NaN``/``Infinity`` literals), and the object that held one says why beside it:
``"null_reasons": {"mfu": "nan"}`` (not a number: 0/0, e.g. a window without tokens) or
``"+inf"``/``"-inf"`` (a division by zero). The text layout is the standard library's
(``indent``, ASCII escapes, ``1e+16``), so artifacts without such values keep their bytes.
"""

from __future__ import annotations

import json
import math
from typing import Any

REASONS = "null_reasons"  # beside nulls that were NaN or ±inf: {field: "nan" | "+inf" | "-inf"}


def _hook(obj: Any) -> Any:
    for base in (str, int, float):  # subclasses msgspec does not take (torch.__version__ is a str subclass)
        if isinstance(obj, base):
            return base(obj)
    if hasattr(obj, "tolist") and callable(obj.tolist):  # numpy array or scalar
        return obj.tolist()
    if hasattr(obj, "item") and callable(obj.item):
        return obj.item()
    raise NotImplementedError(f"cannot write {type(obj).__name__} as JSON")


def to_plain(obj: Any) -> Any:
    """``obj`` as JSON-ready builtins: dicts, lists, str, int, float, bool, None (never NaN or inf).

    What :func:`dumps` would write, as builtins: msgspec's builtins, then the walk that turns
    non-finite numbers into null with their reasons and tuples into lists (no text in between:
    `watch` calls it per window).
    """
    import msgspec

    try:
        raw = msgspec.to_builtins(obj, enc_hook=_hook, str_keys=True)
    except TypeError:  # a key msgspec does not take
        raw = obj
    return _walk(raw)


def dumps(obj: Any, indent: int | None = None) -> str:
    """Strict JSON text of ``obj`` (non-finite numbers → null with a reason); ``indent`` as json.dumps.

    Indented through msgspec's formatter: the same bytes as ``json.dumps(indent=…)``, whose
    indenting encoder is Python and took ~13 ms of a 0.2 s ``rooftop import``.
    """
    import msgspec

    text = _compact(obj)
    if not indent:
        return text if indent is None else json.dumps(json.loads(text), indent=indent)  # 0: newlines, no spaces
    return msgspec.json.format(text, indent=indent)


def _compact(obj: Any) -> str:
    """Compact strict JSON of ``obj``.

    The common case is C passes only (msgspec to builtins, json.dumps); a key msgspec refuses
    (None, a tuple) takes the Python walk that writes the reasons over the whole document, and a
    NaN or inf only over the branches that hold one (``_text``).
    """
    import msgspec

    try:
        raw = msgspec.to_builtins(obj, enc_hook=_hook, str_keys=True)
    except TypeError:  # a key msgspec does not take
        return json.dumps(_walk(obj), allow_nan=False)
    return _text(raw)


def _text(raw: Any) -> str:
    """``json.dumps(_walk(raw))`` of msgspec's builtins, with the walk confined to the branches holding NaN or inf.

    json.dumps stops at the first non-finite number: a dict or list is then written part by part
    (json.dumps' own separators), each clean part in C. A dict that holds one directly is walked
    whole, since the reason is written inside it. An import without ``--hardware`` holds one NaN
    (its roofs' unknown capacity): walking the whole artifact for it was 2 ms of a 0.33 s import.
    """
    try:
        return json.dumps(raw, allow_nan=False)
    except ValueError:  # a NaN or an inf, somewhere below
        pass
    kind = type(raw)
    if kind is list:  # the dicts holding one directly walked first (an import's ops: an infinite intensity each)
        fixed = [_walk(v) if type(v) is dict and not _finite_values(v) else v for v in raw]
        try:
            return json.dumps(fixed, allow_nan=False)
        except ValueError:  # deeper down
            return "[" + ", ".join(map(_text, fixed)) + "]"
    if kind is dict and _finite_values(raw) and all(type(k) is str for k in raw):
        return "{" + ", ".join(f"{json.dumps(k)}: {_text(v)}" for k, v in raw.items()) + "}"
    return json.dumps(_walk(raw), allow_nan=False)


def _finite_values(d: dict[Any, Any]) -> bool:
    """Whether no value of ``d`` itself is a NaN or an inf (its containers not looked into)."""
    return all(type(v) is not float or math.isfinite(v) for v in d.values())


_SCALARS = (str, int, bool, type(None))


def _walk(obj: Any) -> Any:
    """``to_plain`` in Python: non-finite floats become None, named under REASONS beside them.

    The containers' loops look at their scalars inline (a call per scalar was most of the walk:
    8 ms of a 6,000-node import artifact).
    """
    kind = type(obj)
    if kind in _SCALARS:
        return obj
    if kind is float:
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        reasons: dict[str, str] = {}
        for key, value in obj.items():
            name = key if type(key) is str else _key(key)
            kind = type(value)
            if kind in _SCALARS:
                out[name] = value
            elif kind is float and math.isfinite(value):
                out[name] = value
            else:
                out[name] = _walk(value)
                if isinstance(value, float) and not math.isfinite(value):
                    reasons[name] = "nan" if math.isnan(value) else "+inf" if value > 0 else "-inf"
        if reasons:
            held = out.get(REASONS)
            out[REASONS] = {**held, **reasons} if isinstance(held, dict) else reasons
        return out
    if isinstance(obj, list | tuple):
        return [v if type(v) in _SCALARS else _walk(v) for v in obj]
    if isinstance(obj, float):  # a float subclass (numpy.float64)
        return float(obj) if math.isfinite(obj) else None
    for base in (str, int):  # subclasses: enums by value, torch.__version__ (a str subclass)
        if isinstance(obj, base):
            return base(obj.value if hasattr(obj, "value") else obj)
    import msgspec  # dataclasses, Structs, numpy scalars and arrays: to builtins, then as above

    return _walk(msgspec.to_builtins(obj, enc_hook=_hook))


def _key(key: Any) -> str:
    """A dict key as JSON writes it: str as is, numbers as their JSON text, anything else as str()."""
    if isinstance(key, str):
        return str(key)
    if isinstance(key, bool) or key is None:
        return str(key) if key is None else ("true" if key else "false")
    if isinstance(key, int | float):
        return json.dumps(key)
    return str(key)
