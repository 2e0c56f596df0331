"""Streaming reader for Kineto / PyTorch-profiler Chrome traces (``.json`` or ``.json.gz``).

Events are pulled one by one with ijson (its C backend, yajl2_c, when installed) and only the
fields the analyses need are kept, in typed columns (``array``/numpy): memory grows with the number
of GPU activities, launch calls and CPU ops, never with the size of the JSON text. Timestamps stay
in the trace's own unit (µs, integers or floats with ns fractions) until the analyses convert them.

The vocabulary (categories, arg keys, sync and graph-launch calls) is ``mappings/kineto_v1.toml``.
Events that cannot be used (wrong types, negative durations) are counted under a reason in
``Trace.skipped``; a file that is not a trace at all raises :class:`TraceFormatError`.
"""

from __future__ import annotations

import gzip
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

import numpy as np
from numpy.typing import NDArray

from rooftop.errors import TraceFormatError
from rooftop.ingest.mapping import load

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

KERNEL, MEMCPY, MEMSET = 0, 1, 2
_NUMBER = (int, float)
_ID = (int, str)


@dataclass(frozen=True)
class GpuTable:
    """GPU activities (kernels, memcpy, memset), one row each; ``kind`` is KERNEL/MEMCPY/MEMSET."""

    ts_us: F64
    dur_us: F64
    stream: I64
    device: I64
    correlation: I64  # -1 when absent
    name_id: I64
    kind: I64
    bytes: F64  # memcpy/memset payload; NaN for kernels


@dataclass(frozen=True)
class LaunchTable:
    """Host runtime/driver calls (cuda_runtime, cuda_driver), one row each."""

    ts_us: F64
    dur_us: F64
    correlation: I64
    external_id: I64
    thread: I64
    name_id: I64


@dataclass(frozen=True)
class CpuTable:
    """CPU operators and user annotations (ProfilerStep excluded), with shapes for the FLOP families."""

    ts_us: F64
    dur_us: F64
    thread: I64
    external_id: I64
    name_id: I64
    shape_id: I64  # index into ``shapes`` (-1: none); only ops listed in ops_v1.toml keep shapes
    shapes: list[tuple[Any, Any]]  # distinct (Input Dims, Input type): a model repeats a few shapes


@dataclass(frozen=True)
class Trace:
    """Everything kept from one trace file."""

    path: str
    names: list[str]
    gpu: GpuTable
    launches: LaunchTable
    cpu: CpuTable
    steps: list[tuple[str, float, float]]  # (name, ts_us, dur_us) of ProfilerStep#N annotations
    comm_args: dict[int, dict[str, Any]]  # gpu row -> NCCL args (collective, nelems, dtype, group size)
    metadata: dict[str, Any]
    events: int
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def rank(self) -> int | None:
        """The distributed rank recorded in the trace, if any."""
        info = self.metadata.get(load("kineto_v1")["metadata"]["distributed"])
        rank = info.get("rank") if isinstance(info, dict) else None
        return rank if isinstance(rank, int) else None

    @property
    def device_name(self) -> str:
        """The first ``deviceProperties`` name, or ''."""
        props = self.metadata.get(load("kineto_v1")["metadata"]["device_properties"])
        if isinstance(props, list) and props and isinstance(props[0], dict):
            return str(props[0].get("name", ""))
        return ""


def _opener(path: Path) -> Callable[[], IO[bytes]]:
    try:
        with path.open("rb") as f:
            magic = f.read(2)
    except OSError as exc:
        raise TraceFormatError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if magic == b"\x1f\x8b":
        return lambda: cast(IO[bytes], gzip.open(path, "rb"))
    return lambda: path.open("rb")


def _first_byte(open_fn: Callable[[], IO[bytes]]) -> bytes:
    with open_fn() as f:
        head = f.read(4096).lstrip()
    return head[:1]


_READ_ERRORS: tuple[type[BaseException], ...] = (EOFError, OSError, zlib.error, UnicodeDecodeError, ValueError)


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
    """(header metadata, event iterator) of a Chrome trace; top-level object or bare array."""
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
        with open_fn() as f:
            yield from ijson.items(f, "traceEvents.item" if first == b"{" else "item", use_float=True)

    return meta, events()


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


class _Builder:
    """Column accumulators; one ``add`` per event on the hot path."""

    def __init__(self, mapping: dict[str, Any], shape_ops: frozenset[str]) -> None:
        cats = mapping["categories"]
        self.cat_kind: dict[str, int] = {}
        for kind, key in ((KERNEL, "kernel"), (MEMCPY, "memcpy"), (MEMSET, "memset"), (3, "launch"), (4, "cpu_op")):
            for cat in cats[key]:
                self.cat_kind[cat] = kind
        self.step_prefix: str = cats["step_prefix"]
        self.a = mapping["args"]
        self.shape_ops = shape_ops
        self.names: dict[str, int] = {}
        self.threads: dict[tuple[Any, Any], int] = {}
        self.g: dict[str, array[Any]] = {k: array("d") for k in ("ts", "dur", "bytes")} | {
            k: array("q") for k in ("stream", "device", "corr", "name", "kind")
        }
        self.l: dict[str, array[Any]] = {k: array("d") for k in ("ts", "dur")} | {
            k: array("q") for k in ("corr", "ext", "thread", "name")
        }
        self.c: dict[str, array[Any]] = {k: array("d") for k in ("ts", "dur")} | {
            k: array("q") for k in ("thread", "ext", "name", "shape")
        }
        self.shapes: dict[str, int] = {}
        self.shape_list: list[tuple[Any, Any]] = []
        self.steps: list[tuple[str, float, float]] = []
        self.comm: dict[int, dict[str, Any]] = {}
        self.skipped: Counter[str] = Counter()
        self.events = 0

    def name_id(self, name: Any) -> int:
        if type(name) is not str:
            name = "<unnamed>"
        nid = self.names.get(name)
        if nid is None:
            nid = self.names[name] = len(self.names)
        return nid

    def add(self, ev: Any) -> None:
        self.events += 1
        if type(ev) is not dict:
            self.skipped["event is not a JSON object"] += 1
            return
        cat = ev.get("cat")
        kind = self.cat_kind.get(cat) if type(cat) is str else None
        if kind is None or ev.get("ph", "X") != "X":
            return
        ts, dur = ev.get("ts"), ev.get("dur", 0)
        if type(ts) not in _NUMBER or type(dur) not in _NUMBER:
            self.skipped[f"{ev.get('cat')} event without numeric ts/dur"] += 1
            return
        if dur < 0:
            self.skipped[f"{ev.get('cat')} event with negative duration"] += 1
            return
        args = ev.get("args")
        if type(args) is not dict:
            args = {}
        if kind <= MEMSET:
            self._gpu(ev, kind, ts, dur, args)
        elif kind == 3:
            l = self.l
            l["ts"].append(ts)
            l["dur"].append(dur)
            l["corr"].append(_int(args.get(self.a["correlation"])))
            l["ext"].append(_int(args.get(self.a["external_id"])))
            l["thread"].append(self._thread(ev))
            l["name"].append(self.name_id(ev.get("name")))
        else:
            self._cpu(ev, ts, dur, args)

    def _thread(self, ev: dict[str, Any]) -> int:
        pid, tid_ = ev.get("pid"), ev.get("tid")
        key = (pid if type(pid) in _ID else repr(pid), tid_ if type(tid_) in _ID else repr(tid_))
        tid = self.threads.get(key)
        if tid is None:
            tid = self.threads[key] = len(self.threads)
        return tid

    def _gpu(self, ev: dict[str, Any], kind: int, ts: Any, dur: Any, args: dict[str, Any]) -> None:
        g, a = self.g, self.a
        row = len(g["ts"])
        g["ts"].append(ts)
        g["dur"].append(dur)
        stream = args.get(a["stream"], ev.get("tid"))
        g["stream"].append(_int(stream))
        g["device"].append(_int(args.get(a["device"], ev.get("pid"))))
        g["corr"].append(_int(args.get(a["correlation"])))
        g["name"].append(self.name_id(ev.get("name")))
        g["kind"].append(kind)
        payload = args.get(a["bytes"])
        g["bytes"].append(payload if type(payload) in _NUMBER else float("nan"))
        if a["collective"] in args or a["in_nelems"] in args:
            self.comm[row] = {
                k: args.get(a[k]) for k in ("collective", "in_nelems", "out_nelems", "group_size", "comm_dtype")
            }

    def _cpu(self, ev: dict[str, Any], ts: Any, dur: Any, args: dict[str, Any]) -> None:
        name = ev.get("name")
        if type(name) is str and name.startswith(self.step_prefix):
            self.steps.append((name, float(ts), float(dur)))
            return
        c = self.c
        c["ts"].append(ts)
        c["dur"].append(dur)
        c["thread"].append(self._thread(ev))
        c["ext"].append(_int(args.get(self.a["external_id"])))
        c["name"].append(self.name_id(name))
        sid = -1
        if type(name) is str and name in self.shape_ops:
            dims = args.get(self.a["input_dims"])
            if dims is not None:
                types = args.get(self.a["input_type"])
                key = repr((dims, types))  # interned: memory grows with distinct shapes, not with ops
                sid = self.shapes.get(key, -1)
                if sid < 0:
                    sid = self.shapes[key] = len(self.shape_list)
                    self.shape_list.append((dims, types))
        c["shape"].append(sid)

    def finish(self, path: str, meta: dict[str, Any]) -> Trace:
        g, l, c = self.g, self.l, self.c
        return Trace(
            path=path,
            names=list(self.names),
            gpu=GpuTable(
                _f(g["ts"]),
                _f(g["dur"]),
                _i(g["stream"]),
                _i(g["device"]),
                _i(g["corr"]),
                _i(g["name"]),
                _i(g["kind"]),
                _f(g["bytes"]),
            ),
            launches=LaunchTable(
                _f(l["ts"]), _f(l["dur"]), _i(l["corr"]), _i(l["ext"]), _i(l["thread"]), _i(l["name"])
            ),
            cpu=CpuTable(
                _f(c["ts"]), _f(c["dur"]), _i(c["thread"]), _i(c["ext"]), _i(c["name"]), _i(c["shape"]), self.shape_list
            ),
            steps=sorted(self.steps, key=lambda s: s[1]),
            comm_args=self.comm,
            metadata=meta,
            events=self.events,
            skipped=dict(self.skipped),
        )


def _int(value: Any) -> int:
    """An id as int; -1 when missing or not an integer (strings like '0x0' included)."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return -1


def _f(col: array[Any]) -> F64:
    return np.frombuffer(col, dtype=np.float64).copy() if len(col) else np.zeros(0)


def _i(col: array[Any]) -> I64:
    return np.frombuffer(col, dtype=np.int64).copy() if len(col) else np.zeros(0, dtype=np.int64)


def read_trace(path: str | Path, progress: Callable[[int], None] | None = None) -> Trace:
    """Stream one Kineto trace into typed columns; malformed files raise TraceFormatError."""
    p = Path(path)
    mapping = load("kineto_v1")
    shape_ops = frozenset(load("ops_v1")["ops"])
    meta, events = iter_events(p)
    builder = _Builder(mapping, shape_ops)
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
    if builder.events == 0:
        raise TraceFormatError(f"{p}: no trace events (expected a 'traceEvents' list)")
    trace = builder.finish(str(p), meta)
    if not np.any(trace.gpu.kind == KERNEL):
        raise TraceFormatError(
            f"{p}: no GPU kernel events (cat=kernel) among {builder.events} events; "
            "record with ProfilerActivity.CUDA to see the GPU"
        )
    return trace
