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
from collections.abc import Callable, Sequence
from functools import cache
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

NUMBER = (int, float)  # JSON numbers (bool is neither: type() is compared, not isinstance)
_ID = (int, str)
INT64_BOUND = 2**63  # integers beyond int64 (ids) or so large that float() would lose them are not times
_COMM_KEYS = ("collective", "in_nelems", "out_nelems", "group_size", "comm_dtype")
MALFORMED = -2  # shape_id of an op whose Input Dims/Input type/Concrete Inputs are not shapes
MALFORMED_SHAPE = "cpu op with malformed Input Dims/Input type/Concrete Inputs (FLOPs not counted)"
MAX_DIM = 2**48  # elements along one axis; a larger (or 400-digit) dimension is not a tensor's
_SCALARS = (str, int, float, bool, type(None))


def _dim_list(value: Any, depth: int) -> bool:
    """A tensor's sizes (ints in [0, 2**48]), or a TensorList of them (depth 2)."""
    if type(value) is not list:
        return False
    for d in value:
        if type(d) is int:
            if not 0 <= d <= MAX_DIM:
                return False
        elif depth == 0 or not _dim_list(d, depth - 1):
            return False
    return True


def _flat(value: Any) -> bool:
    """None, or a list of scalars and lists of scalars (Input type, Concrete Inputs)."""
    if value is None:
        return True
    if type(value) is not list:
        return False
    return all(type(v) in _SCALARS or (type(v) is list and all(type(x) in _SCALARS for x in v)) for v in value)


def shape_ok(dims: Any, types: Any, concrete: Any) -> bool:
    """Whether an op's recorded shapes can be costed: bounded sizes, type names as strings, depth <= 3."""
    names_ok = types is None or (type(types) is list and all(type(t) is str or t is None for t in types))
    return names_ok and _dim_list(dims, 2) and _flat(concrete)


class Builder:
    """Typed columns, interned names/threads/shapes, steps, NCCL args and skip reasons of one trace."""

    def __init__(self, mapping: dict[str, Any], keeps_shape: Callable[[str], bool]) -> None:
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
        self.arg_keys: dict[str, str] = mapping["args"]
        self.older_keys: dict[str, str] = mapping["args_older"]
        self.keeps_shape = cache(keeps_shape)  # by op name: whether its Input Dims are kept
        self.names: dict[str, int] = {}
        self.threads: dict[tuple[Any, Any], int] = {}
        self.gpu: dict[str, array[Any]] = {k: array("d") for k in ("ts", "dur", "bytes")} | {
            k: array("q") for k in ("stream", "device", "corr", "name", "kind")
        }
        self.launch: dict[str, array[Any]] = {k: array("d") for k in ("ts", "dur")} | {
            k: array("q") for k in ("corr", "ext", "thread", "name")
        }
        self.cpu: dict[str, array[Any]] = {k: array("d") for k in ("ts", "dur")} | {
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
        if type(ts) not in NUMBER or type(dur) not in NUMBER:
            self.skipped[f"{cat} event without numeric ts/dur"] += 1
            return None
        if not (
            -INT64_BOUND < ts < INT64_BOUND and dur < INT64_BOUND
        ):  # NaN, inf (JSON 1e400) and int64 overflow alike
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
        gpu = self.gpu
        row = len(gpu["ts"])
        gpu["ts"].append(ts)
        gpu["dur"].append(dur)
        gpu["stream"].append(_int(stream))
        gpu["device"].append(_int(device))
        gpu["corr"].append(_int(corr))
        gpu["name"].append(self.name_id(name))
        gpu["kind"].append(kind)
        gpu["bytes"].append(moved_bytes(payload))
        if comm is not None:
            self.comm[row] = dict(zip(_COMM_KEYS, comm))

    def launch_row(self, ts: Any, dur: Any, corr: Any, ext: Any, pid: Any, tid: Any, name: Any) -> None:
        launch = self.launch
        launch["ts"].append(ts)
        launch["dur"].append(dur)
        launch["corr"].append(_int(corr))
        launch["ext"].append(_int(ext))
        launch["thread"].append(self.thread(pid, tid))
        launch["name"].append(self.name_id(name))

    def cpu_row(
        self, ts: Any, dur: Any, pid: Any, tid: Any, ext: Any, name: Any, dims: Any, types: Any, concrete: Any = None
    ) -> None:
        if type(name) is str and name.startswith(self.step_prefix):
            self.steps.append((name, float(ts), float(dur)))
            return
        cpu = self.cpu
        cpu["ts"].append(ts)
        cpu["dur"].append(dur)
        cpu["thread"].append(self.thread(pid, tid))
        cpu["ext"].append(_int(ext))
        cpu["name"].append(self.name_id(name))
        sid = -1
        if dims is not None and type(name) is str and self.keeps_shape(name):
            sid = max(self.shape_id(dims, types, concrete), -1)
        cpu["shape"].append(sid)

    def shape_id(self, dims: Any, types: Any, concrete: Any = None) -> int:
        """Interned (Input Dims, Input type, Concrete Inputs): memory grows with distinct shapes, not with ops."""
        if not shape_ok(dims, types, concrete):
            self.skipped[MALFORMED_SHAPE] += 1
            return MALFORMED
        return self.known_shape_id(dims, types, concrete)

    def known_shape_id(self, dims: Any, types: Any, concrete: Any) -> int:
        """:meth:`shape_id` of values already known to pass ``shape_ok``."""
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
        keys, older, ts, dur = self.arg_keys, self.older_keys, ev["ts"], get("dur", 0)
        if kind <= MEMSET:
            comm = None
            if keys["collective"] in args or keys["in_nelems"] in args:
                comm = [args.get(keys[k]) for k in _COMM_KEYS]
            self.gpu_row(
                kind,
                ts,
                dur,
                args.get(keys["stream"], get("tid")),
                args.get(keys["device"], get("pid")),
                args.get(keys["correlation"]),
                get("name"),
                args.get(keys["bytes"]),
                comm,
            )
        elif kind == LAUNCH:
            self.launch_row(
                ts,
                dur,
                args.get(keys["correlation"]),
                args.get(keys["external_id"], args.get(older["external_id"])),
                get("pid"),
                get("tid"),
                get("name"),
            )
        else:
            self.cpu_row(
                ts,
                dur,
                get("pid"),
                get("tid"),
                args.get(keys["external_id"], args.get(older["external_id"])),
                get("name"),
                args.get(keys["input_dims"], args.get(older["input_dims"])),
                args.get(keys["input_type"]),
                args.get(keys["concrete_inputs"]),
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
        gpu, launch, cpu = self.gpu, self.launch, self.cpu
        shapes = (self.shape_list, self.concrete_list)  # CpuTable.shapes and .concrete
        return Trace(
            path=path,
            names=list(self.names),
            gpu=GpuTable(
                _f(gpu["ts"]),
                _f(gpu["dur"]),
                _i(gpu["stream"]),
                _i(gpu["device"]),
                _i(gpu["corr"]),
                _i(gpu["name"]),
                _i(gpu["kind"]),
                _f(gpu["bytes"]),
            ),
            launches=LaunchTable(
                _f(launch["ts"]),
                _f(launch["dur"]),
                _i(launch["corr"]),
                _i(launch["ext"]),
                _i(launch["thread"]),
                _i(launch["name"]),
            ),
            cpu=CpuTable(
                _f(cpu["ts"]),
                _f(cpu["dur"]),
                _i(cpu["thread"]),
                _i(cpu["ext"]),
                _i(cpu["name"]),
                _i(cpu["shape"]),
                *shapes,
            ),
            steps=sorted(self.steps, key=lambda s: s[1]),
            comm_args=self.comm,
            metadata=meta,
            events=self.events,
            skipped=dict(self.skipped),
        )


def moved_bytes(value: Any) -> float:
    """A copy's recorded bytes as float; NaN when missing, not a number, or beyond a double (1e400 as an integer)."""
    if type(value) is float or (type(value) is int and -INT64_BOUND <= value < INT64_BOUND):
        return float(value)
    return float("nan")


def _int(value: Any) -> int:
    """An id as int; -1 when missing or not an integer (strings like '0x0' included)."""
    if type(value) is int:
        return value if -INT64_BOUND <= value < INT64_BOUND else -1
    if type(value) is float and value.is_integer() and -INT64_BOUND <= value < INT64_BOUND:
        return int(value)
    return -1


def _f(col: array[Any]) -> F64:
    return np.frombuffer(col, dtype=np.float64).copy() if len(col) else np.zeros(0)


def _i(col: array[Any]) -> I64:
    return np.frombuffer(col, dtype=np.int64).copy() if len(col) else np.zeros(0, dtype=np.int64)
