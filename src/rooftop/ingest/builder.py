"""Column accumulators for one Kineto trace, fed event by event by either reader.

Two readers feed the same rows: ``add`` takes an event as a ``dict`` (the ijson fallback reader)
and ``add_structs`` a decoded chunk of ``fastjson`` structs. Both pass through the same row
methods, so the two readers give identical tables (``tests/ingest/test_fastjson.py`` proves it on
every fixture and on fuzzed events). Events that cannot be used (wrong types, negative durations)
are counted under a reason in ``skipped``.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from rooftop.ingest.tables import (
    CPU_OP,
    F64,
    I64,
    KERNEL,
    LAUNCH,
    MEMCPY,
    MEMSET,
    CpuTable,
    GpuTable,
    LaunchTable,
    Trace,
)

_NUMBER = (int, float)
_ID = (int, str)
_BIG = 2**63  # integers beyond int64 (ids) or so large that float() would lose them are not times
_COMM_KEYS = ("collective", "in_nelems", "out_nelems", "group_size", "comm_dtype")


class Builder:
    """Typed columns, interned names/threads/shapes, steps, NCCL args and skip reasons of one trace."""

    def __init__(self, mapping: dict[str, Any], shape_ops: frozenset[str]) -> None:
        cats = mapping["categories"]
        self.cat_kind: dict[str, int] = {}
        for kind, key in (
            (KERNEL, "kernel"),
            (MEMCPY, "memcpy"),
            (MEMSET, "memset"),
            (LAUNCH, "launch"),
            (CPU_OP, "cpu_op"),
        ):
            for cat in cats[key]:
                self.cat_kind[cat] = kind
        self.step_prefix: str = cats["step_prefix"]
        self.a: dict[str, str] = mapping["args"]
        self.a_older: dict[str, str] = mapping["args_older"]
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
        self.concrete_list: list[Any] = []  # Concrete Inputs beside each shape_list entry
        self.raw_shapes: dict[tuple[bytes, bytes | None, bytes | None], int] = {}  # columns.py: raw texts -> id
        self.steps: list[tuple[str, float, float]] = []
        self.comm: dict[int, dict[str, Any]] = {}
        self.skipped: Counter[str] = Counter()
        self.events = 0

    # -- interning ---------------------------------------------------------------------------
    def name_id(self, name: Any) -> int:
        if type(name) is not str:
            name = "<unnamed>"
        nid = self.names.get(name)
        if nid is None:
            nid = self.names[name] = len(self.names)
        return nid

    def thread(self, pid: Any, tid: Any) -> int:
        key = (pid if type(pid) in _ID else repr(pid), tid if type(tid) in _ID else repr(tid))
        th = self.threads.get(key)
        if th is None:
            th = self.threads[key] = len(self.threads)
        return th

    # -- rows (shared by both readers) ---------------------------------------------------------
    def kind_of(self, cat: Any, ph: Any, ts: Any, dur: Any) -> int | None:
        """The row kind of an event, or None when it is not kept (counted when it is unusable)."""
        kind = self.cat_kind.get(cat) if type(cat) is str else None
        if kind is None or ph != "X":
            return None
        if type(ts) not in _NUMBER or type(dur) not in _NUMBER:
            self.skipped[f"{cat} event without numeric ts/dur"] += 1
            return None
        if (type(ts) is int and not -_BIG < ts < _BIG) or (type(dur) is int and dur >= _BIG):
            self.skipped[f"{cat} event with an out-of-range ts/dur"] += 1
            return None
        if dur < 0:
            self.skipped[f"{cat} event with negative duration"] += 1
            return None
        return kind

    def gpu_row(
        self,
        kind: int,
        ts: Any,
        dur: Any,
        stream: Any,
        device: Any,
        corr: Any,
        name: Any,
        payload: Any,
        comm: Sequence[Any] | None,
    ) -> None:
        g = self.g
        row = len(g["ts"])
        g["ts"].append(ts)
        g["dur"].append(dur)
        g["stream"].append(_int(stream))
        g["device"].append(_int(device))
        g["corr"].append(_int(corr))
        g["name"].append(self.name_id(name))
        g["kind"].append(kind)
        g["bytes"].append(payload if type(payload) in _NUMBER else float("nan"))
        if comm is not None:
            self.comm[row] = dict(zip(_COMM_KEYS, comm))

    def launch_row(self, ts: Any, dur: Any, corr: Any, ext: Any, pid: Any, tid: Any, name: Any) -> None:
        l = self.l
        l["ts"].append(ts)
        l["dur"].append(dur)
        l["corr"].append(_int(corr))
        l["ext"].append(_int(ext))
        l["thread"].append(self.thread(pid, tid))
        l["name"].append(self.name_id(name))

    def cpu_row(
        self, ts: Any, dur: Any, pid: Any, tid: Any, ext: Any, name: Any, dims: Any, types: Any, concrete: Any = None
    ) -> None:
        if type(name) is str and name.startswith(self.step_prefix):
            self.steps.append((name, float(ts), float(dur)))
            return
        c = self.c
        c["ts"].append(ts)
        c["dur"].append(dur)
        c["thread"].append(self.thread(pid, tid))
        c["ext"].append(_int(ext))
        c["name"].append(self.name_id(name))
        sid = -1
        if dims is not None and type(name) is str and name in self.shape_ops:
            sid = self.shape_id(dims, types, concrete)
        c["shape"].append(sid)

    def shape_id(self, dims: Any, types: Any, concrete: Any = None) -> int:
        """Interned (Input Dims, Input type, Concrete Inputs): memory grows with distinct shapes, not with ops."""
        key = repr((dims, types, concrete))
        sid = self.shapes.get(key, -1)
        if sid < 0:
            sid = self.shapes[key] = len(self.shape_list)
            self.shape_list.append((dims, types))
            self.concrete_list.append(concrete)
        return sid

    # -- the ijson reader: one dict per event --------------------------------------------------
    def add(self, ev: Any) -> None:
        """One event as parsed JSON (any type: non-objects are counted as skipped)."""
        self.events += 1
        if type(ev) is not dict:
            self.skipped["event is not a JSON object"] += 1
            return
        get = ev.get
        kind = self.kind_of(get("cat"), get("ph", "X"), get("ts"), get("dur", 0))
        if kind is None:
            return
        args = get("args")
        if type(args) is not dict:
            args = {}
        a, ts, dur = self.a, ev["ts"], get("dur", 0)
        if kind <= MEMSET:
            comm = None
            if a["collective"] in args or a["in_nelems"] in args:
                comm = [args.get(a[k]) for k in _COMM_KEYS]
            self.gpu_row(
                kind,
                ts,
                dur,
                args.get(a["stream"], get("tid")),
                args.get(a["device"], get("pid")),
                args.get(a["correlation"]),
                get("name"),
                args.get(a["bytes"]),
                comm,
            )
        elif kind == LAUNCH:
            ext = args.get(a["external_id"], args.get(self.a_older["external_id"]))
            self.launch_row(ts, dur, args.get(a["correlation"]), ext, get("pid"), get("tid"), get("name"))
        else:
            self.cpu_row(
                ts,
                dur,
                get("pid"),
                get("tid"),
                args.get(a["external_id"], args.get(self.a_older["external_id"])),
                get("name"),
                args.get(a["input_dims"], args.get(self.a_older["input_dims"])),
                args.get(a["input_type"]),
                args.get(a["concrete_inputs"]),
            )

    # -- the msgspec reader: a chunk of structs (fastjson.Event / fastjson.Args) ----------------
    def add_structs(self, events: Sequence[Any], kit: Any) -> None:
        """A decoded chunk, event by event (``kit``: fastjson.Kit; absent arg keys are ``kit.unset``)."""
        self.events += len(events)
        unset, empty = kit.unset, kit.empty_args
        cat_kind, kind_of = self.cat_kind, self.kind_of
        for e in events:
            cat = e.cat
            if cat not in cat_kind:  # most events (flows, metadata) end here
                continue
            kind = kind_of(cat, e.ph, e.ts, e.dur)
            if kind is None:
                continue
            args = e.args or empty
            if kind <= MEMSET:
                stream, device = args.stream, args.device
                comm = None
                if args.collective is not unset or args.in_nelems is not unset:
                    values = (args.collective, args.in_nelems, args.out_nelems, args.group_size, args.comm_dtype)
                    comm = [None if v is unset else v for v in values]
                self.gpu_row(
                    kind,
                    e.ts,
                    e.dur,
                    e.tid if stream is unset else stream,
                    e.pid if device is unset else device,
                    args.correlation,
                    e.name,
                    args.bytes,
                    comm,
                )
            elif kind == LAUNCH:
                ext = args.external_id if args.external_id is not unset else args.external_id_older
                self.launch_row(e.ts, e.dur, args.correlation, ext, e.pid, e.tid, e.name)
            else:
                dims, types, concrete = args.input_dims, args.input_type, args.concrete_inputs
                if dims is unset:
                    dims = args.input_dims_older
                self.cpu_row(
                    e.ts,
                    e.dur,
                    e.pid,
                    e.tid,
                    args.external_id if args.external_id is not unset else args.external_id_older,
                    e.name,
                    None if dims is unset else kit.decode_raw(dims),
                    None if types is unset else kit.decode_raw(types),
                    None if concrete is unset else kit.decode_raw(concrete),
                )

    def finish(self, path: str, meta: dict[str, Any]) -> Trace:
        """The Trace of everything added."""
        g, l, c = self.g, self.l, self.c
        shapes = (self.shape_list, self.concrete_list)  # CpuTable.shapes and .concrete
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
                _f(c["ts"]), _f(c["dur"]), _i(c["thread"]), _i(c["ext"]), _i(c["name"]), _i(c["shape"]), *shapes
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
        return value if -_BIG <= value < _BIG else -1
    if type(value) is float and value.is_integer() and -_BIG <= value < _BIG:
        return int(value)
    return -1


def _f(col: array[Any]) -> F64:
    return np.frombuffer(col, dtype=np.float64).copy() if len(col) else np.zeros(0)


def _i(col: array[Any]) -> I64:
    return np.frombuffer(col, dtype=np.int64).copy() if len(col) else np.zeros(0, dtype=np.int64)
