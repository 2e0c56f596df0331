"""Rows of a decoded chunk (``fastjson`` structs) appended column by column, not event by event.

``add_chunk`` does what ``Builder.add_structs`` does, event for event, but field by field with
C-level ``map``/``attrgetter`` and numpy conversions. It first checks that the chunk is plain
(timestamps present, durations non-negative and finite, ids within int64, names present); any
other chunk goes through ``Builder.add_structs``, which counts the skip reasons. Names and threads
are interned in file order, so both give identical tables (tests/ingest/test_columns.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Any

import numpy as np

from rooftop.ingest.builder import INT64_BOUND, MALFORMED, MALFORMED_SHAPE, Builder, moved_bytes
from rooftop.ingest.tables import CPU_OP, LAUNCH, MEMSET

_COMM = ("collective", "in_nelems", "out_nelems", "group_size", "comm_dtype")
_GET = {name: attrgetter(name) for name in ("cat", "name", "pid", "tid", "ts", "dur", "args")}
_IDS = ("correlation", "external_id", "external_id_older", "stream", "device", "bytes")
_SHAPES = ("input_dims", "input_dims_older", "input_type", "concrete_inputs")
_ARG = {name: attrgetter(name) for name in (*_IDS, *_COMM, *_SHAPES)}
Array = np.ndarray[Any, Any]


class _NotPlain(Exception):
    pass


def _take(seq: Sequence[Any], rows: list[int]) -> list[Any]:
    return list(map(seq.__getitem__, rows))


def add_chunk(b: Builder, events: Sequence[Any], kit: Any) -> None:
    """Append a chunk of decoded events to ``b`` (vectorised when the chunk is plain)."""
    ck = b.cat_kind
    sel = [e for e in events if e.cat in ck and e.ph == "X"]
    try:
        ts, dur = _times(sel)
        names = list(map(_GET["name"], sel))
        if None in names:
            raise _NotPlain
        kinds = np.array(list(map(ck.__getitem__, map(_GET["cat"], sel))), dtype=np.int64)
        args = list(map(_GET["args"], sel))
        if None in args:
            args = [a if a is not None else kit.empty_args for a in args]
        ids = _ids(sel, args, kinds, kit.unset)
    except _NotPlain:
        b.add_structs(events, kit)
        return
    b.events += len(events)
    keep = _steps(b, kinds, names, ts, dur)
    name_id = np.full(len(sel), -1, dtype=np.int64)
    name_id[keep] = _intern(b.names, _take(names, np.flatnonzero(keep).tolist()))
    host = (kinds >= LAUNCH) & keep
    thread = np.full(len(sel), -1, dtype=np.int64)
    thread[host] = _threads(b.threads, _take(sel, np.flatnonzero(host).tolist()))
    gpu = kinds <= MEMSET
    _comm(b, _take(args, np.flatnonzero(gpu).tolist()), kit.unset)
    payload = map(_ARG["bytes"], _take(args, np.flatnonzero(gpu).tolist()))
    _extend(
        b.gpu,
        ts=ts[gpu],
        dur=dur[gpu],
        stream=ids["stream"][gpu],
        device=ids["device"][gpu],
        corr=ids["corr"][gpu],
        name=name_id[gpu],
        kind=kinds[gpu],
        bytes=np.array(list(map(moved_bytes, payload)), dtype=np.float64),
    )
    launch = kinds == LAUNCH
    _extend(
        b.launch,
        ts=ts[launch],
        dur=dur[launch],
        corr=ids["corr"][launch],
        ext=ids["ext"][launch],
        thread=thread[launch],
        name=name_id[launch],
    )
    cpu = (kinds == CPU_OP) & keep
    _extend(
        b.cpu,
        ts=ts[cpu],
        dur=dur[cpu],
        thread=thread[cpu],
        ext=ids["ext"][cpu],
        name=name_id[cpu],
        shape=_shapes(b, args, cpu, names, kit),
    )


def _times(sel: list[Any]) -> tuple[Array, Array]:
    ts_l, dur_l = list(map(_GET["ts"], sel)), list(map(_GET["dur"], sel))
    if None in ts_l or None in dur_l:
        raise _NotPlain
    try:
        ts, dur = np.array(ts_l, dtype=np.float64), np.array(dur_l, dtype=np.float64)
    except OverflowError as exc:  # an integer beyond a double (1 followed by 400 zeros): Builder skips its row
        raise _NotPlain from exc
    if ts.size and (
        np.max(np.abs(ts)) >= INT64_BOUND or not (np.min(dur) >= 0) or np.max(dur) >= INT64_BOUND
    ):  # NaN too
        raise _NotPlain
    return ts, dur


def _steps(b: Builder, kinds: Array, names: list[str], ts: Array, dur: Array) -> Array:
    """Record the ``ProfilerStep#N`` rows as steps; the mask of the other rows."""
    keep = np.ones(len(names), dtype=bool)
    cpu_rows = np.flatnonzero(kinds == CPU_OP).tolist()
    cpu_names = _take(names, cpu_rows)
    steps = {n for n in dict.fromkeys(cpu_names) if n.startswith(b.step_prefix)}
    if steps:
        for j in np.flatnonzero(np.fromiter(map(steps.__contains__, cpu_names), bool, len(cpu_rows))).tolist():
            i = cpu_rows[j]
            keep[i] = False
            b.steps.append((names[i], float(ts[i]), float(dur[i])))
    return keep


def _intern(table: dict[Any, int], keys: list[Any]) -> list[int]:
    """Ids of ``keys`` in ``table``, new keys numbered in order of first appearance (like Builder)."""
    for key in dict.fromkeys(keys):
        if key not in table:
            table[key] = len(table)
    return list(map(table.__getitem__, keys))


def _threads(table: dict[Any, int], host: list[Any]) -> list[int]:
    pids, tids = list(map(_GET["pid"], host)), list(map(_GET["tid"], host))
    if None in pids or None in tids:  # Builder keys a missing pid/tid as repr(None)
        pids = [p if p is not None else "None" for p in pids]
        tids = [t if t is not None else "None" for t in tids]
    return _intern(table, list(zip(pids, tids)))


def _int_column(values: list[Any], n: int, rows: list[int]) -> Array:
    """Ids as int64 at ``rows`` of an n-row column (-1 elsewhere and where not an integer)."""
    out = np.full(n, -1, dtype=np.int64)
    if set(map(type, values)) != {int}:
        values = [v if type(v) is int else (int(v) if type(v) is float and v.is_integer() else -1) for v in values]
    try:
        out[rows] = values
    except OverflowError as exc:  # beyond int64: Builder.add_structs writes -1
        raise _NotPlain from exc
    return out


def _ids(sel: list[Any], args: list[Any], kinds: Array, unset: Any) -> dict[str, Array]:
    n = len(sel)
    with_corr = np.flatnonzero(kinds <= LAUNCH).tolist()
    with_ext = np.flatnonzero(kinds >= LAUNCH).tolist()
    gpu = np.flatnonzero(kinds <= MEMSET).tolist()
    gargs = _take(args, gpu)
    stream = [s if s is not unset else sel[i].tid for s, i in zip(map(_ARG["stream"], gargs), gpu)]
    device = [d if d is not unset else sel[i].pid for d, i in zip(map(_ARG["device"], gargs), gpu)]
    return {
        "corr": _int_column(list(map(_ARG["correlation"], _take(args, with_corr))), n, with_corr),
        "ext": _int_column(_older(_take(args, with_ext), "external_id", unset), n, with_ext),
        "stream": _int_column(stream, n, gpu),
        "device": _int_column(device, n, gpu),
    }


def _older(args: list[Any], attr: str, unset: Any) -> list[Any]:
    """``attr`` of each args struct, or its older spelling (kineto_v1.toml ``args_older``) when absent."""
    values = list(map(_ARG[attr], args))
    if unset in values:
        older = _ARG[f"{attr}_older"]
        values = [v if v is not unset else older(a) for v, a in zip(values, args)]
    return values


def _comm(b: Builder, gargs: list[Any], unset: Any) -> None:
    first = len(b.gpu["ts"])
    for j, (c, m) in enumerate(zip(map(_ARG["collective"], gargs), map(_ARG["in_nelems"], gargs))):
        if c is not unset or m is not unset:
            values = [_ARG[k](gargs[j]) for k in _COMM]
            b.comm[first + j] = {k: (None if v is unset else v) for k, v in zip(_COMM, values)}


def _shapes(b: Builder, args: list[Any], cpu: Array, names: list[str], kit: Any) -> Array:
    """Shape ids of the CPU rows; raw ``Input Dims``/``Input type``/``Concrete Inputs`` seen before skip decoding."""
    rows = np.flatnonzero(cpu).tolist()
    sid = np.full(len(rows), -1, dtype=np.int64)
    unset, seen = kit.unset, b.raw_shapes
    kept = np.flatnonzero(np.fromiter(map(b.keeps_shape, _take(names, rows)), bool, len(rows))).tolist()
    chosen = _take(args, _take(rows, kept))
    found_ids = []
    for raw, types, concrete in zip(
        _older(chosen, "input_dims", unset), map(_ARG["input_type"], chosen), map(_ARG["concrete_inputs"], chosen)
    ):
        if raw is unset:
            found_ids.append(-1)
            continue
        key = (
            bytes(raw),
            None if types is unset else bytes(types),
            None if concrete is unset else bytes(concrete),
        )
        found = seen.get(key)
        if found is None:
            found = seen[key] = _new_shape(b, kit, raw, types, concrete)
        elif found == MALFORMED:  # counted per op, as Builder.cpu_row counts it
            b.skipped[MALFORMED_SHAPE] += 1
        found_ids.append(found)
    sid[kept] = np.maximum(found_ids, -1) if found_ids else -1
    return sid


def _new_shape(b: Builder, kit: Any, raw: Any, types: Any, concrete: Any) -> int:
    """The shape id of raw texts not seen before: checked while decoding, or decoded and judged by ``shape_id``."""
    dims_of, types_of, concrete_of = kit.shape_decoders
    unset = kit.unset
    try:
        return b.known_shape_id(
            dims_of.decode(raw),
            None if types is unset else types_of.decode(types),
            None if concrete is unset else concrete_of.decode(concrete),
        )
    except ValueError:  # msgspec's DecodeError and ValidationError: not a plain shape
        pass
    dims = kit.decode_raw(raw)
    decoded = [None if x is unset else kit.decode_raw(x) for x in (types, concrete)]
    return -1 if dims is None else b.shape_id(dims, *decoded)


def _extend(cols: dict[str, Any], **values: Array) -> None:
    for key, arr in values.items():
        col = cols[key]
        col.frombytes(np.ascontiguousarray(arr, dtype=np.float64 if col.typecode == "d" else np.int64).tobytes())
