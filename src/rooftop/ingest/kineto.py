"""Streaming reader for Kineto / PyTorch-profiler Chrome traces (``.json`` or ``.json.gz``).

Two readers fill the same typed columns (``builder.py``, ``tables.py``): the fast one decodes the
``traceEvents`` array a block at a time with msgspec (``fastjson.py``); the fallback pulls events
one by one with ijson (its C backend, yajl2_c) and is used for any file the fast one does not
vouch for (malformed, truncated, unusual types), so errors and skip reasons come from one place.
Either way only the fields the analyses need are kept: memory grows with the number of GPU
activities, launch calls and CPU ops, never with the size of the JSON text.

The vocabulary (categories, arg keys, sync and graph-launch calls) is ``mappings/kineto_v1.toml``.
Events that cannot be used (wrong types, negative durations) are counted under a reason in
``Trace.skipped``; a file that is not a trace at all raises :class:`TraceFormatError`.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections import Counter, deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, cast

import numpy as np

from rooftop.errors import TraceFormatError
from rooftop.ingest import columns, fastjson
from rooftop.ingest.builder import Builder
from rooftop.ingest.mapping import load
from rooftop.ingest.tables import KERNEL, MEMCPY, MEMSET, CpuTable, GpuTable, LaunchTable, Trace
from rooftop.torchops.cost import costable

__all__ = ["KERNEL", "MEMCPY", "MEMSET", "CpuTable", "GpuTable", "LaunchTable", "Trace", "iter_events", "read_trace"]


def magic_gzip(path: Path) -> bool:
    """Whether the file starts with the gzip magic bytes."""
    try:
        with path.open("rb") as f:
            return f.read(2) == b"\x1f\x8b"
    except OSError as exc:
        raise TraceFormatError(f"{path}: cannot read: {exc.strerror or exc}") from exc


MAX_GZIP_RATIO = 64  # real traces compress 7-20x; a gzip that inflates further is a bomb
MAX_GZIP_EXTRA = 64 << 20  # ... unless its text is small anyway
MAX_RUN_BYTES = fastjson.MAX_PENDING_BYTES  # text without a '"': every event has quoted keys
TAIL_BYTES = 64 << 10  # text kept from a file's end: the top-level keys written after traceEvents


class _Bounded:
    """A trace's text, refused once it inflates past ``limit`` bytes or runs ``MAX_RUN_BYTES`` without a quote.

    Both readers stop there within a second, instead of inflating a gzip bomb or building a
    1 GiB string (the ijson reader builds long strings in quadratic time).
    """

    def __init__(self, path: Path, gzipped: bool) -> None:
        self.path = path
        self.limit = MAX_GZIP_EXTRA + MAX_GZIP_RATIO * path.stat().st_size if gzipped else -1
        self.total = self.run = 0
        self.last: deque[bytes] = deque()  # the latest reads, at least TAIL_BYTES of text once there is as much
        self.last_size = 0
        self.f: IO[bytes] = cast(IO[bytes], gzip.open(path, "rb")) if gzipped else path.open("rb")

    def read(self, n: int = -1) -> bytes:
        data = self.f.read(n if n >= 0 or self.limit < 0 else self.limit + 1 - self.total)
        self.total += len(data)
        if 0 <= self.limit < self.total:
            raise TraceFormatError(
                f"{self.path}: inflates past {self.limit:,} bytes ({MAX_GZIP_RATIO}x its size): "
                "not a trace a profiler wrote (a gzip bomb?)"
            )
        quote = data.rfind(b'"')
        self.run = self.run + len(data) if quote < 0 else len(data) - quote - 1
        if self.run > MAX_RUN_BYTES:
            raise TraceFormatError(
                f"{self.path}: {MAX_RUN_BYTES >> 20} MiB of text without a quote "
                "(a string or value larger than any profiler writes)"
            )
        if data:
            self.last.append(data)
            self.last_size += len(data)
            while self.last_size - len(self.last[0]) >= TAIL_BYTES:
                self.last_size -= len(self.last.popleft())
        return data

    def tail(self) -> bytes:
        """The last TAIL_BYTES or more of the text read so far."""
        return b"".join(self.last)

    def __enter__(self) -> _Bounded:
        return self

    def __exit__(self, *exc: object) -> None:
        self.f.close()

    def close(self) -> None:
        self.f.close()


def _opener(path: Path) -> Callable[[], IO[bytes]]:
    gzipped = magic_gzip(path)
    return lambda: cast(IO[bytes], _Bounded(path, gzipped))


def _first_byte(open_fn: Callable[[], IO[bytes]]) -> bytes:
    with open_fn() as f:
        head = f.read(4096).lstrip()
    return head[:1]


_READ_ERRORS: tuple[type[BaseException], ...] = (
    EOFError,
    OSError,
    zlib.error,
    UnicodeDecodeError,
    ValueError,
    RecursionError,  # a decoder or a caller recursing into JSON nested thousands deep
)


def _json_errors() -> tuple[type[BaseException], ...]:
    import ijson

    return (ijson.JSONError, ijson.IncompleteJSONError, *_READ_ERRORS)


def _header(open_fn: Callable[[], IO[bytes]]) -> dict[str, Any]:
    """Top-level keys written before ``traceEvents`` (Kineto writes deviceProperties there)."""
    import ijson
    from ijson.common import ObjectBuilder

    meta: dict[str, Any] = {}
    key: str | None = None
    builder: ObjectBuilder | None = None
    with open_fn() as f:
        for prefix, event, value in ijson.parse(f, use_float=True):
            if builder is not None:
                builder.event(event, value)
                if prefix == key and event in ("end_map", "end_array"):
                    meta[str(key)] = builder.value
                    builder = None
            elif prefix == "" and event == "map_key":
                key = value
                if key == "traceEvents":
                    break
            elif key is not None and prefix == key:
                if event in ("start_map", "start_array"):
                    builder = ObjectBuilder()
                    builder.event(event, value)
                else:
                    meta[key] = value
    return meta


def iter_events(path: str | Path) -> tuple[dict[str, Any], Iterator[Any]]:
    """(header metadata, event iterator) of a Chrome trace; top-level object or bare array.

    Once the events are exhausted, the metadata also holds the keys written after them.
    """
    import ijson

    p = Path(path)
    open_fn = _opener(p)
    try:
        first = _first_byte(open_fn)
        if first not in (b"{", b"["):
            raise TraceFormatError(f"{p}: not a JSON trace (starts with {first!r})")
        meta = _header(open_fn) if first == b"{" else {}
    except TraceFormatError:
        raise
    except _json_errors() as exc:
        raise TraceFormatError(f"{p}: unreadable trace: {_one_line(exc)}") from exc

    def events() -> Iterator[Any]:
        with _Bounded(p, magic_gzip(p)) as f:
            yield from ijson.items(f, "traceEvents.item" if first == b"{" else "item", use_float=True)
            if first == b"{":  # the whole document is read: keys after the events are in its tail
                after = fastjson.keys_after_events(f.tail())
                meta.update(fastjson.merge_keys(meta, after))

    return meta, events()


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


def _read_fast(p: Path, builder: Builder, progress: Callable[[int], None] | None) -> dict[str, Any]:
    """Feed ``builder`` with the msgspec chunk reader.

    Raises fastjson.NotFast when the file is left to ijson; the caller then starts over.
    """
    open_fn = _opener(p)
    try:
        first = _first_byte(open_fn)
    except _READ_ERRORS as exc:
        raise fastjson.NotFast(str(exc)) from exc
    if first not in (b"{", b"["):
        raise fastjson.NotFast("not JSON")
    reader = fastjson.Reader(open_fn, first == b"{")
    kit = fastjson.kit()
    try:
        for events in reader.chunks():
            columns.add_chunk(builder, events, kit)
            if progress is not None:
                progress(builder.events)
    except fastjson.Unbounded as exc:
        raise TraceFormatError(f"{p}: {exc}") from exc
    return reader.meta


def _read_slow(p: Path, builder: Builder, progress: Callable[[int], None] | None) -> dict[str, Any]:
    """Feed ``builder`` with ijson, one event at a time (exact error messages and skip reasons)."""
    meta, events = iter_events(p)
    add = builder.add
    try:
        for ev in events:
            add(ev)
            if progress is not None and builder.events % 65536 == 0:
                progress(builder.events)
    except _json_errors() as exc:
        raise TraceFormatError(
            f"{p}: truncated or malformed trace after {builder.events} events: {_one_line(exc)}"
        ) from exc
    return meta


def read_trace(
    path: str | Path, progress: Callable[[int], None] | None = None, fast: bool = True, require_kernels: bool = True
) -> Trace:
    """Stream one Kineto trace into typed columns; malformed files raise TraceFormatError.

    ``require_kernels=False`` accepts a trace without GPU kernels (a CPU-only engine's trace).

    ``fast`` tries the msgspec reader first and falls back to ijson for anything it does not
    vouch for; ``fast=False`` uses ijson only (both give the same Trace, tests/ingest/test_fastjson.py).
    """
    p = Path(path)
    mapping = load("kineto_v1")
    builder = Builder(mapping, costable)
    meta: dict[str, Any] | None = None
    if fast:
        try:
            meta = _read_fast(p, builder, progress)
        except fastjson.NotFast:
            builder = Builder(mapping, costable)
    if meta is None:
        meta = _read_slow(p, builder, progress)
    if builder.events == 0:
        raise TraceFormatError(f"{p}: no trace events (expected a 'traceEvents' list)")
    _refuse_merged_ranks(p, builder.threads)
    trace = builder.finish(str(p), meta)
    if require_kernels and not np.any(trace.gpu.kind == KERNEL):
        raise TraceFormatError(_no_kernels(p, builder))
    return trace


# SGLang's merge_profiles (srt/utils/profile_merger.py) writes every rank's events into one file,
# each pid prefixed with the rank's label: "[TP01] 4242", "[DP00-TP03] 0".
_RANK_LABEL = re.compile(r"\[((?:TP|DP|PP|EP)\d+(?:-(?:TP|DP|PP|EP)\d+)*)\] ")


def _refuse_merged_ranks(p: Path, threads: dict[tuple[Any, Any], int]) -> None:
    """A file that merged several ranks' traces is refused: their correlation ids repeat, one per rank.

    Read as one trace, a launch would be joined to another rank's kernel and the GPU timeline
    would merge every rank's; the per-rank files it was merged from read as a folder of ranks.
    """
    labels = sorted({m[1] for pid, _ in threads if type(pid) is str and (m := _RANK_LABEL.match(pid))})
    if len(labels) > 1:
        raise TraceFormatError(
            f"{p}: a merged trace of {len(labels)} ranks ({', '.join(labels[:4])}{', …' if len(labels) > 4 else ''}; "
            "SGLang's merge_profiles): their correlation ids repeat across ranks, so it cannot be read as one; "
            "import the per-rank *TP-*.trace.json.gz files it was merged from (a folder of them reads rank by rank)"
        )


def _no_kernels(p: Path, builder: Builder) -> str:
    """Why a file read as a trace holds no kernels, and what to do: one line."""
    if builder.skipped.get("event is not a JSON object", 0) == builder.events:
        return f"{p}: not a Chrome trace: none of its {builder.events:,} entries is an event object"
    cats = _categories(p)
    seen = ", ".join(f"{cat} {n:,}" for cat, n in cats.most_common(4))
    text = f"{p}: no GPU kernel events (cat=kernel) among {builder.events:,} events ({seen or 'no categories'}); "
    gpu = {cat for cat, kind in builder.cat_kind.items() if kind <= MEMSET}
    dropped = {why: n for why, n in builder.skipped.items() if why.split(" ", 1)[0] in gpu}
    if dropped:  # GPU events there, none usable (builder.py's reasons open with the event's cat)
        return text + "skipped: " + ", ".join(f"{n:,} {why}" for why, n in dropped.items())
    if "cuda_profiler_range" in cats:  # CUPTI's range profiler: counters per kernel, replayed, no timeline
        return text + (
            "its cuda_profiler_range events are CUPTI counters of replayed kernels, not a timeline: "
            "profile with ProfilerActivity.CUDA, or read the counters with Nsight Compute (rooftop import ncu.csv)"
        )
    if any("mtia" in cat for cat in cats):
        return text + "an MTIA trace: rooftop reads CUDA and ROCm kernel timelines"
    return text + "record with ProfilerActivity.CUDA to see the GPU"


def _categories(p: Path) -> Counter[str]:
    """How many events of each ``cat`` the trace holds (read again: only when explaining an error)."""
    import ijson

    counts: Counter[str] = Counter()
    try:
        with _opener(p)() as f:
            for prefix, event, value in ijson.parse(f):
                if event == "string" and prefix in ("traceEvents.item.cat", "item.cat"):
                    counts[value] += 1
    except _json_errors():
        pass  # what was counted still says something
    return counts
