"""A small YAML writer for rule files: maps, lists, strings, numbers (no dependency).

Strings are written single-quoted (PromQL's double quotes need no escape there; a ' doubles),
or double-quoted in JSON's escaping when they hold control characters. A long PromQL expression
is folded onto continuation lines inside its quotes (YAML joins them with one space, which
PromQL ignores) so that files read well at 80 columns.
"""

from __future__ import annotations

import json
from typing import Any

WIDTH = 78


def _scalar(value: Any, indent: int) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    raw = str(value)
    if any(ord(ch) < 0x20 for ch in raw):
        return json.dumps(raw, ensure_ascii=False)
    text = "'" + raw.replace("'", "''") + "'"
    if len(text) + indent <= WIDTH:
        return text
    return _fold(text, indent)


def _fold(text: str, indent: int) -> str:
    """Break a quoted string at spaces; each continuation line is indented one step deeper."""
    pad = " " * (indent + 2)
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) + indent > WIDTH:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return ("\n" + pad).join(lines)


def dump(obj: Any, indent: int = 0) -> str:
    """YAML text of ``obj`` (nested dicts and lists of scalars)."""
    pad = " " * indent
    out = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            out.append(_entry(f"{pad}{key}:", value, indent + 2))
    elif isinstance(obj, list):
        for item in obj:
            if isinstance(item, dict) and item:
                body = dump(item, indent + 2)
                out.append(f"{pad}- {body.lstrip()}")
            else:
                out.append(_entry(f"{pad}-", item, indent + 2))
    return "\n".join(out)


def _entry(head: str, value: Any, indent: int) -> str:
    if isinstance(value, dict | list):
        if not value:
            return f"{head} {'{}' if isinstance(value, dict) else '[]'}"
        return f"{head}\n{dump(value, indent)}"
    return f"{head} {_scalar(value, indent)}"
