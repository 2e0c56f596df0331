"""Typed, constrained decoding at the input boundaries, with one-line errors naming the field.

Each boundary (config.json, catalog TOML, run artifacts, datasets) declares what it accepts as
msgspec ``Struct`` types whose fields carry ``Meta`` constraints: finite, positive where physics
says so, integer where a count is meant, bounded where a value would make the work unbounded.
:func:`convert` applies such a type to decoded data and turns msgspec's message into
``<file>: <field> = <value>: <what is wrong>``, raised as the caller's typed error (exit code 2).

The constrained number types below are the vocabulary the boundary schemas share.
"""

from __future__ import annotations

import math
import re
from collections.abc import Set as AbstractSet
from typing import Annotated, Any, TypeVar

import msgspec

from rooftop.errors import RooftopError

T = TypeVar("T")

# A float that is finite: NaN fails every comparison, so ``ge`` refuses it; ``le`` refuses inf.
FLOAT_MAX = 1e300
Finite = Annotated[float, msgspec.Meta(ge=-FLOAT_MAX, le=FLOAT_MAX)]
FiniteNonNegative = Annotated[float, msgspec.Meta(ge=0.0, le=FLOAT_MAX)]
FinitePositive = Annotated[float, msgspec.Meta(gt=0.0, le=FLOAT_MAX)]
# Counts beyond this are not a workload but an overflow (numpy's int64 holds 9.2e18).
COUNT_MAX = 1 << 53
Count = Annotated[int, msgspec.Meta(ge=0, le=COUNT_MAX)]
ShortText = Annotated[str, msgspec.Meta(max_length=4096)]

_PATH = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_TYPE = re.compile(r"^Expected `(?P<want>[\w |]+)`(?P<rest>.*?)(?:, got `(?P<got>\w+)`)?$")
_WORDS = {"int": "an integer", "float": "a number", "str": "a string", "array": "a list", "object": "a table/object"}
_OPS = {">=": "≥", "<=": "≤", ">": ">", "<": "<"}


def _lookup(data: Any, path: str) -> tuple[bool, Any]:
    """The value at a msgspec path such as ``.device[0].bf16_tflops`` (found, value)."""
    value = data
    for key, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path):
        try:
            value = value[int(index)] if index else value[key]
        except (KeyError, IndexError, TypeError):
            return False, None
    return True, value


def _show(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        if value.bit_length() > 1024:  # beyond a float's range (a 400-digit count): no str() of it either
            return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
        return f"{value:.3g}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _what(message: str, value: Any) -> str:
    """msgspec's 'Expected `int` >= 1, got `float`' in plain words."""
    if isinstance(value, float) and not math.isfinite(value):
        return "not a finite number"
    if message.startswith("Invalid enum value"):  # msgspec repeats the whole value; the line shows it cut
        return "not one of the allowed values"
    match = _TYPE.match(message)
    if not match:
        return _cut(message.replace("`", "'"))
    want, rest, got = match["want"], match["rest"].strip(), match["got"]
    if got:
        wanted = " or ".join(_WORDS.get(w, w) for w in want.split(" | ") if w != "null")
        return f"not {wanted}" + (f" (got {_WORDS.get(got, got)})" if got != "str" else "")
    bound = re.fullmatch(r"(>=|<=|>|<) (\S+)", rest)
    if bound:
        limit = float(bound[2])
        shown = f"{int(limit):,}" if limit.is_integer() and abs(limit) < 1e18 else bound[2]
        return f"must be {_OPS[bound[1]]} {shown}"
    length = re.fullmatch(r"(?:of )?length (<=|>=) (\d+)", rest)
    if length:
        unit, count = ("characters" if want == "str" else "items"), int(length[2])
        if length[1] == "<=":
            return f"too long (at most {count:,} {unit})"
        return "must not be empty" if count == 1 else f"too short (at least {count:,} {unit})"
    return _cut(message.replace("`", "'"))


def _cut(text: str, limit: int = 120) -> str:
    """An error's words, never a screenful: msgspec may quote the offending input in its message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(exc: msgspec.ValidationError, data: Any, where: str) -> str:
    """One line naming the file, the field and its value, from a msgspec ValidationError."""
    message = str(exc)
    match = _PATH.search(message)
    path = match["path"] if match else ""
    message = message[: match.start()] if match else message
    missing = re.fullmatch(r"Object missing required field `(.+)`", message)
    field = path.lstrip(".") or "(top level)"
    if missing:
        sep = "" if field.startswith("[") else ": "
        return f"{where}{sep}{field + '.' if path else ''}{missing[1]}: missing"
    some = path.endswith("[...]")  # a value of a mapping: msgspec does not say which key
    path = path.removesuffix("[...]")
    field = path.lstrip(".") or "(top level)"
    found, value = _lookup(data, path)
    shown = f" = {_show(value)}" if found and path else ""
    if some:
        return f"{where}: {field}{shown}: a value {_what(message, None)}"
    sep = "" if field.startswith("[") else ": "
    return f"{where}{sep}{field}{shown}: {_what(message, value if found else None)}"


def convert(data: Any, schema: type[T], where: str, error: type[RooftopError]) -> T:
    """``data`` as ``schema`` (strict: no str->int coercion); a mismatch raises ``error`` in one line."""
    try:
        return msgspec.convert(data, schema, strict=True)
    except msgspec.ValidationError as exc:
        raise error(describe(exc, data, where)) from None


def integral_floats(data: dict[str, Any], names: AbstractSet[str]) -> dict[str, Any]:
    """A copy of ``data`` with whole floats (``32.0``, ``1e12``) under ``names`` made ints, for count fields."""
    out = dict(data)
    for key in names & out.keys():
        value = out[key]
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            out[key] = int(value)
    return out
