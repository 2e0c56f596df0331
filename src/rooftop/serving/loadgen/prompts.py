"""Requests to send: synthetic prompts with length distributions, or a JSONL dataset.

Synthetic prompts for /v1/completions are lists of token ids, so the engine sees exactly the
asked number of prompt tokens without a tokenizer here; for chat they are text of one short word
per token (about one token each for common tokenizers).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import msgspec
import numpy as np

from rooftop.core.safejson import loads_json, read_bounded
from rooftop.core.schema import convert
from rooftop.errors import WorkloadError

FIRST_ID, LAST_ID = 100, 500  # inside any real vocabulary, clear of special tokens
MAX_LEN = 1 << 24  # prompt or output tokens of one request: 16,777,216
MAX_DATASET_BYTES = 1 << 30
MAX_PROMPT_CHARS = 1 << 26  # one prompt's text: 64 Mi characters
WORDS = ("the", "a", "of", "to", "and", "in", "is", "it", "on", "for")


class Lengths(msgspec.Struct, frozen=True):
    """A length distribution: fixed (mean), normal (mean:stddev) or uniform (low-high); ≥ 1."""

    mean: int
    stddev: float = 0.0
    low: int = 0
    high: int = 0

    def draw(self, n: int, rng: np.random.Generator) -> list[int]:
        """``n`` lengths."""
        if self.high:
            return [int(x) for x in rng.integers(self.low, self.high + 1, size=n)]
        if self.stddev > 0:
            return [max(1, round(x)) for x in rng.normal(self.mean, self.stddev, size=n)]
        return [self.mean] * n


def parse_lengths(text: str, name: str) -> Lengths:
    """'256' fixed, '1024:256' normal mean:stddev, '128-512' uniform."""
    t = str(text).strip()
    if m := re.fullmatch(r"(\d+)", t):
        value = Lengths(int(m[1]))
    elif m := re.fullmatch(r"(\d+):(\d+(?:\.\d+)?)", t):
        value = Lengths(int(m[1]), float(m[2]))
    elif m := re.fullmatch(r"(\d+)-(\d+)", t):
        low, high = int(m[1]), int(m[2])
        if low > high:
            raise WorkloadError(f"{name} {t!r}: range is inverted")
        value = Lengths((low + high) // 2, low=low, high=high)
    else:
        raise WorkloadError(f"{name} {t!r}: expected N, MEAN:STDDEV or LOW-HIGH")
    if value.mean < 1 or (value.high and value.low < 1):
        raise WorkloadError(f"{name} {t!r}: lengths must be ≥ 1")
    if max(value.mean, value.high) > MAX_LEN or value.stddev > MAX_LEN:
        raise WorkloadError(f"{name} {t!r}: lengths must be at most {MAX_LEN:,}")
    return value


class Request(msgspec.Struct, frozen=True):
    """One request: a prompt (token ids or text, or chat messages) and the output tokens to ask for."""

    prompt: list[int] | str | list[dict[str, str]]
    output_len: int
    prompt_len: int | None = None  # known exactly for token-id prompts


def synthetic(n: int, prompt: Lengths, output: Lengths, chat: bool = False, seed: int = 0) -> list[Request]:
    """``n`` random prompts with lengths from ``prompt`` and output budgets from ``output``."""
    rng = np.random.default_rng(seed)
    out = []
    for p_len, o_len in zip(prompt.draw(n, rng), output.draw(n, rng)):
        if chat:
            text = " ".join(WORDS[i] for i in rng.integers(0, len(WORDS), size=p_len))
            out.append(Request([{"role": "user", "content": text}], o_len))
        else:
            ids = [int(x) for x in rng.integers(FIRST_ID, LAST_ID, size=p_len)]
            out.append(Request(ids, o_len, p_len))
    return out


class Message(msgspec.Struct, forbid_unknown_fields=False):
    """One chat message of a dataset row."""

    role: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    content: str | list[dict[str, Any]]


class Row(msgspec.Struct, forbid_unknown_fields=False):
    """One dataset line: a prompt text or chat messages, and optionally its output budget."""

    prompt: str | None = None
    messages: Annotated[list[Message], msgspec.Meta(min_length=1)] | None = None
    output_len: Annotated[int, msgspec.Meta(ge=1, le=MAX_LEN)] | None = None


def read_rows(path: str | Path) -> list[tuple[dict[str, Any], Row]]:
    """Every non-blank line of a JSONL dataset, decoded, bounded and typed; errors name file:line."""
    p = Path(path)
    text = read_bounded(p, WorkloadError, MAX_DATASET_BYTES)
    rows = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        raw = loads_json(line, f"{p}:{i}", WorkloadError, max_string=MAX_PROMPT_CHARS)
        if not isinstance(raw, dict) or (raw.get("prompt") is None) == (raw.get("messages") is None):
            raise WorkloadError(f"{p}:{i}: expected an object with 'prompt' (text) or 'messages' (a list), not both")
        rows.append((raw, convert(raw, Row, f"{p}:{i}", WorkloadError)))
    if not rows:
        raise WorkloadError(f"{p}: empty dataset")
    return rows


def dataset(path: str | Path, n: int, output: Lengths, chat: bool = False, seed: int = 0) -> list[Request]:
    """``n`` requests from a JSONL file of {"prompt": str} or {"messages": [...]} (optional "output_len").

    Lines are reused in order when the file has fewer than ``n``.
    """
    rows = read_rows(path)
    budgets = output.draw(n, np.random.default_rng(seed))
    out = []
    for i in range(n):
        raw, row = rows[i % len(rows)]
        o_len = row.output_len or budgets[i]
        if row.messages is not None:
            out.append(Request(list(raw["messages"]), o_len))
        elif chat:
            out.append(Request([{"role": "user", "content": str(row.prompt)}], o_len))
        else:
            out.append(Request(str(row.prompt), o_len))
    return out
