"""The fast reader for Chrome traces: the ``traceEvents`` array decoded in chunks by msgspec.

The decompressed text is read in blocks; each block is cut after the last ``}`` followed by a
comma and the events before the cut are decoded in one call into small typed structs
(``Event``, ``Args``) that hold only the fields rooftop uses; every other key is skipped in C.
Memory therefore stays bounded by the block size whatever the file size, like the ijson reader,
at several times its speed.

A cut can only be wrong (inside a string or a nested value) if the text before it is unbalanced,
and then decoding it fails: the reader then reads one more block and cuts again. Anything this
reader does not vouch for raises :class:`NotFast` and the caller re-reads the file with the ijson
reader, which owns every error message and skip reason: an event that is not an object, ``args``
that is not an object, numbers out of range, truncated or malformed text, unusual layouts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import IO, Any, NamedTuple

from rooftop.ingest.mapping import load

BLOCK_BYTES = 1 << 20  # decompressed text decoded per chunk
MAX_PENDING_BYTES = 16 << 20  # no decodable cut within this much text: not a trace this reader vouches for
_WS = b" \t\r\n"
_MAX_TAIL_TRIES = 64


class NotFast(Exception):
    """Raised when a file is left to the ijson reader (which gives the exact error or skip reasons)."""


class Unbounded(Exception):
    """Raised when no event ends within ``MAX_PENDING_BYTES`` of text: no reader should go on."""


class Kit(NamedTuple):
    """What the struct readers need: the chunk decoder, the absent-key marker, an empty Args, Raw decoders."""

    decoder: Any
    unset: Any
    empty_args: Any
    decode_raw: Callable[[Any], Any]
    shape_decoders: tuple[Any, Any, Any]  # Input Dims, Input type, Concrete Inputs: only what builder.shape_ok accepts


@cache
def kit() -> Kit:
    """Structs with only the used fields, built from kineto_v1.toml's arg keys (others are skipped in C).

    Top-level fields are typed as Kineto writes them (a string ``cat``, integer or string ``pid``,
    numeric ``ts``...): any other type fails validation and the file goes to the ijson reader.
    ``Input Dims``/``Input type``/``Concrete Inputs`` stay raw JSON, decoded only for the operators whose
    shapes are used (a value msgspec refuses counts as a malformed shape: yajl refuses the whole file).
    """
    import msgspec

    raw_keys = {"input_dims", "input_type", "concrete_inputs", "input_dims_older"}
    mapping = load("kineto_v1")
    keys = mapping["args"] | {f"{attr}_older": key for attr, key in mapping["args_older"].items()}
    args = msgspec.defstruct(
        "Args",
        [
            (attr, msgspec.Raw if attr in raw_keys else Any, msgspec.field(name=key, default=msgspec.UNSET))
            for attr, key in keys.items()
        ],
        gc=False,
    )
    number = int | float | None
    ident = int | str | None
    event = msgspec.defstruct(
        "Event",
        [
            ("ph", str, "X"),
            ("cat", str | None, None),
            ("name", str | None, None),
            ("pid", ident, None),
            ("tid", ident, None),
            ("ts", number, None),
            ("dur", number, 0),
            ("args", args | None, None),
        ],
        gc=False,
    )
    return Kit(msgspec.json.Decoder(list[event]), msgspec.UNSET, args(), _decode_raw, _shape_decoders())  # type: ignore[valid-type]


def _shape_decoders() -> tuple[Any, Any, Any]:
    """Typed decoders of ``Input Dims``, ``Input type`` and ``Concrete Inputs`` that accept only well-formed values.

    What they accept, ``builder.shape_ok`` accepts, with the same Python values as an untyped
    decode: sizes are integers in [0, 2**48] nested at most twice, type names strings or null,
    concrete inputs scalars or lists of scalars. Checked in C while decoding; any other value
    fails and is decoded and judged as before (the Python check was a third of reading shapes).
    """
    from typing import Annotated

    import msgspec

    from rooftop.ingest.builder import MAX_DIM

    size = Annotated[int, msgspec.Meta(ge=0, le=MAX_DIM)]
    scalar = str | int | float | bool | None
    return (
        msgspec.json.Decoder(list[size | list[size | list[size]]]),  # type: ignore[valid-type]
        msgspec.json.Decoder(list[str | None] | None),
        msgspec.json.Decoder(list[scalar | list[scalar]] | None),  # type: ignore[valid-type]
    )


UNREADABLE = "<unreadable>"  # a Raw value msgspec refuses: no shape, so counted as a malformed one


def _decode_raw(raw: Any) -> Any:
    """An ``Input Dims``/``Input type``/``Concrete Inputs`` value; UNREADABLE for a number beyond a double (1e400)."""
    import msgspec

    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return UNREADABLE


def _errors() -> tuple[type[BaseException], ...]:
    import zlib

    import msgspec

    return (msgspec.DecodeError, EOFError, OSError, zlib.error, UnicodeDecodeError, ValueError, RecursionError)


class Reader:
    """Header metadata and event chunks of one trace; every failure becomes :class:`NotFast`."""

    def __init__(self, open_fn: Callable[[], IO[bytes]], is_object: bool) -> None:
        self.open_fn = open_fn
        self.is_object = is_object
        self.meta: dict[str, Any] = {}
        self.cut_once = False

    def chunks(self) -> Iterator[list[Any]]:
        """Decoded events, a block at a time (``self.meta`` is set before the first chunk).

        The text waiting for a cut is kept as a list of blocks and joined only into the decoder's
        input: a cut is looked for in the newest block (the blocks before it held none, or it
        failed), so a block is copied once, not concatenated to the text before it first.
        """
        import msgspec

        decoder = kit().decoder
        try:
            with self.open_fn() as f:
                pending: list[bytes | memoryview] = [self._start(f)]
                size, retry_at = len(pending[0]), 0  # after a failed cut, decode again once the text has doubled
                while True:
                    data = f.read(BLOCK_BYTES)
                    if not data:
                        yield self._last(b"".join(pending))
                        return
                    pending.append(data)
                    size += len(data)
                    self._check_pending(size)
                    cut = _cut(data) if size >= retry_at else None
                    if cut is None:
                        continue
                    try:
                        events = decoder.decode(_bracketed([*pending[:-1], memoryview(data)[: cut[0]]], b"]"))
                    except msgspec.ValidationError as exc:
                        raise NotFast(str(exc)) from exc
                    except msgspec.DecodeError:  # a cut inside a string or a nested value: read on
                        retry_at = 2 * size
                        continue
                    pending = [data[cut[1] :]]
                    size, retry_at = len(pending[0]), 0
                    self.cut_once = True
                    yield events
        except NotFast:
            raise
        except _errors() as exc:
            raise NotFast(str(exc)) from exc

    def _check_pending(self, size: int) -> None:
        if size > MAX_PENDING_BYTES:
            raise Unbounded(
                f"no event ends within {MAX_PENDING_BYTES >> 20} MiB of text "
                "(an event or string larger than any profiler writes)"
            )

    def _start(self, f: IO[bytes]) -> memoryview:
        """The text after the ``[`` that opens the events, a view; sets ``meta`` (keys before ``traceEvents``)."""
        import msgspec

        buf = b""
        while True:
            data = f.read(BLOCK_BYTES)
            buf += data
            if not self.is_object:
                i = buf.find(b"[")
                if i >= 0:
                    return memoryview(buf)[i + 1 :]
            else:
                at = _events_key(buf, msgspec.json.decode)
                if at is not None:
                    self.meta, rest = at
                    return memoryview(buf)[rest:]
            if not data:
                raise NotFast("no traceEvents array")
            if self.is_object and len(buf) > MAX_PENDING_BYTES:
                raise Unbounded(
                    f"no 'traceEvents' key in the first {MAX_PENDING_BYTES >> 20} MiB{_first_key(buf)}: "
                    "not a Chrome trace (rooftop reads the PyTorch profiler's export_chrome_trace)"
                )
            self._check_pending(len(buf))

    def _last(self, buf: bytes) -> list[Any]:
        """The events of the final block: up to the ``]`` whose tail closes the document."""
        import msgspec

        decoder = kit().decoder
        for p in _closing_brackets(buf):
            after = _tail_keys(buf[p + 1 :], self.is_object)
            if after is None:
                continue
            if self.cut_once and not buf[:p].strip(_WS):
                raise NotFast("a comma before the closing bracket")
            try:
                events: list[Any] = decoder.decode(_bracketed([memoryview(buf)[: p + 1]], b""))
            except msgspec.ValidationError as exc:
                raise NotFast(str(exc)) from exc
            except msgspec.DecodeError:
                continue
            self.meta = merge_keys(self.meta, after)
            return events
        raise NotFast("truncated or malformed end of trace")


def _closing_brackets(text: bytes) -> Iterator[int]:
    """The positions of the last ``_MAX_TAIL_TRIES`` ``]`` of ``text``, the last first."""
    end = len(text)
    for _ in range(_MAX_TAIL_TRIES):
        end = text.rfind(b"]", 0, end)
        if end < 0:
            return
        yield end


def _first_key(buf: bytes) -> str:
    """`` (its first key is 'name')`` for a JSON object's text, '' when no short key opens it."""
    import re

    m = re.match(rb'\s*\{\s*"([^"\\]{1,80})"', buf)
    return f" (its first key is {m.group(1).decode('utf-8', 'replace')!r})" if m else ""


def _bracketed(parts: list[Any], close: bytes) -> bytes:
    """``b"[" + b"".join(parts) + close`` in one copy (a ``+`` chain made a fresh megabyte-sized buffer per ``+``)."""
    return b"".join((b"[", *parts, close))


def _events_key(buf: bytes, decode: Callable[[bytes], Any]) -> tuple[dict[str, Any], int] | None:
    """(header keys, offset after '[') when buf holds the top-level ``"traceEvents": [``."""
    start = 0
    while (k := buf.find(b'"traceEvents"', start)) >= 0:
        start = k + 1
        key_end = k + len(b'"traceEvents"')
        try:
            head = decode(buf[:key_end] + b":null}")
        except ValueError:  # not a top-level key (inside a string or a nested value)
            continue
        if not isinstance(head, dict) or list(head)[-1] != "traceEvents":
            raise NotFast("unusual header")
        i = _skip_ws(buf, key_end)
        if i >= len(buf) or buf[i : i + 1] != b":":
            return None
        i = _skip_ws(buf, i + 1)
        if i >= len(buf):
            return None
        if buf[i : i + 1] != b"[":
            raise NotFast("traceEvents is not an array")
        del head["traceEvents"]
        return head, i + 1
    return None


def _skip_ws(buf: bytes, i: int) -> int:
    while i < len(buf) and buf[i] in _WS:
        i += 1
    return i


def _cut(buf: bytes) -> tuple[int, int] | None:
    """(end of the events before the last ``},``, start of the text after its comma), or None."""
    end = len(buf)
    while (comma := buf.rfind(b",", 0, end)) > 0:
        j = comma - 1
        while j > 0 and buf[j] in _WS:
            j -= 1
        if buf[j] == ord("}"):
            return j + 1, comma + 1
        end = comma
    return None


def _tail_keys(tail: bytes, is_object: bool) -> dict[str, Any] | None:
    """The top-level keys after the events array (``tail`` follows its ``]``); None when ``tail`` does not close it."""
    if not is_object:
        return None if tail.strip(_WS) else {}
    if b'"traceEvents"' in tail:
        raise NotFast("a second traceEvents key")
    return decode_keys(tail)


def decode_keys(tail: bytes) -> dict[str, Any] | None:
    """The keys of ``tail``, the rest of a JSON object after one of its values; None when it is not that."""
    import msgspec

    try:
        keys = msgspec.json.decode(b'{"":0' + tail)
    except msgspec.DecodeError:
        return None
    if not isinstance(keys, dict):
        return None
    keys.pop("", None)
    return keys


def keys_after_events(text: bytes) -> dict[str, Any]:
    """The top-level keys after the events array, from the last bytes of an object document.

    The events end at the leftmost of the last ``_MAX_TAIL_TRIES`` ``]`` after which the text closes
    the object: a later one closes a list among those keys (``deviceProperties``), an earlier one lies
    inside the events, where the text after it cannot close the object.
    """
    keys: dict[str, Any] = {}
    for p in _closing_brackets(text):
        after = decode_keys(text[p + 1 :])
        if after is not None and b'"traceEvents"' not in text[p + 1 :]:
            keys = after
    return keys


def merge_keys(header: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Header keys, then the keys written after the events (Kineto's traceName; deviceProperties in re-saved traces)."""
    return {**header, **{key: value for key, value in after.items() if key not in header}}
