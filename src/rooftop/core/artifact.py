"""The run artifact: versioned JSON that every command writes and `report`/`compare` read.

Schema ``rooftop.run/1`` (documented in docs/artifact.md). FLOPs, bytes and seconds are raw SI
numbers; non-finite numbers (an intensity with no bytes) are written as null.
"""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from rooftop.core import jsonenc
from rooftop.core.enums import Bound
from rooftop.core.findings import Finding
from rooftop.core.points import Phase, RooflinePoint, Source, Traffic
from rooftop.core.roofs import ComputeRoof, MemoryRoof, RoofKind, Roofs
from rooftop.core.safejson import read_json
from rooftop.errors import ArtifactError, quoted

if TYPE_CHECKING:
    from rooftop.core.totals import Totals  # read back in run_from_dict: a trace's import has none to load

SCHEMA = "rooftop.run/1"
MAX_ARTIFACT_BYTES = 256 << 20
TRAFFIC_KEYS = ("weight_bytes", "act_in_bytes", "act_out_bytes", "kv_read_bytes", "kv_write_bytes")


class Result(msgspec.Struct, frozen=True):
    """One workload's points, totals, memory budget and findings."""

    workload: dict[str, Any]
    points: tuple[RooflinePoint, ...]
    totals: Totals | None = None
    memory: dict[str, Any] = msgspec.field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    extra: dict[str, Any] = msgspec.field(default_factory=dict)  # source-specific sections (timeline, identity...)

    def __repr__(self) -> str:
        from rooftop.core.frames import result_label

        return f"<Result {result_label(self)}: {len(self.points)} points, {len(self.findings)} findings>"


class Run(msgspec.Struct, frozen=True):
    """A whole artifact: the roofs used, the results, and the identity of what produced them."""

    command: str
    roofs: Roofs
    results: tuple[Result, ...]
    identity: dict[str, Any] = msgspec.field(default_factory=dict)
    extra_roofs: tuple[Roofs, ...] = ()  # e.g. measured roofs drawn beside datasheet ones

    def to_dataframe(self) -> Any:
        """One row per point per result: SI columns (flops, bytes, time_s...) and the workload fields (pandas)."""
        from rooftop.core.frames import to_dataframe

        return to_dataframe(self)

    def __repr__(self) -> str:
        from rooftop.core.frames import run_repr

        return run_repr(self)

    def _repr_html_(self) -> str:
        from rooftop.core.frames import run_html

        return run_html(self)


def _nan_for_null(d: dict[str, Any]) -> dict[str, Any]:
    """The writer's null (a non-finite number) read back as NaN, so arithmetic stays float."""
    return {k: float("nan") if v is None else v for k, v in d.items()}


def roofs_to_dict(roofs: Roofs) -> dict[str, Any]:
    """Roofs as JSON: name, compute {dtype: FLOP/s}, memory {level: B/s}, kinds and sources."""
    return {
        "name": roofs.name,
        "vendor": roofs.vendor,
        "capacity_bytes": roofs.capacity_bytes,
        "compute": {r.dtype: r.flop_per_s for r in roofs.compute},
        "memory": {r.level: r.bytes_per_s for r in roofs.memory},
        "kind": {
            **{f"compute.{r.dtype}": r.kind.value for r in roofs.compute},
            **{f"memory.{r.level}": r.kind.value for r in roofs.memory},
        },
        "source": {
            **{f"compute.{r.dtype}": r.source for r in roofs.compute},
            **{f"memory.{r.level}": r.source for r in roofs.memory},
        },
        "identity": roofs.identity,
    }


def roofs_from_dict(data: dict[str, Any]) -> Roofs:
    """Inverse of roofs_to_dict."""
    kinds = data.get("kind", {})
    sources = data.get("source", {})
    return Roofs(
        name=data["name"],
        vendor=data.get("vendor", ""),
        capacity_bytes=data.get("capacity_bytes") or float("nan"),
        compute=tuple(
            ComputeRoof(d, float(v), RoofKind(kinds.get(f"compute.{d}", "datasheet")), sources.get(f"compute.{d}", ""))
            for d, v in data["compute"].items()
        ),
        memory=tuple(
            MemoryRoof(lv, float(v), RoofKind(kinds.get(f"memory.{lv}", "datasheet")), sources.get(f"memory.{lv}", ""))
            for lv, v in data["memory"].items()
        ),
        identity=data.get("identity", {}),
    )


def point_to_dict(p: RooflinePoint) -> dict[str, Any]:
    """A point as an `ops` entry of the schema."""
    t = p.traffic or Traffic()
    return {
        "name": p.label,
        "op": p.op,
        "phase": p.phase.value,
        "source": p.source.value,
        "count": p.count,
        "flops": p.flops,
        "bytes": p.bytes,
        "level": p.level,
        "weight_bytes": t.weight_bytes,
        "act_in_bytes": t.act_in_bytes,
        "act_out_bytes": t.act_out_bytes,
        "kv_read_bytes": t.kv_read_bytes,
        "kv_write_bytes": t.kv_write_bytes,
        "link_bytes": p.link_bytes,
        "intensity": p.intensity,
        "time_s": p.time_s,
        "dtype": p.dtype,
        "bound": p.bound,
        "provenance": p.provenance,
    }


def point_from_dict(d: dict[str, Any]) -> RooflinePoint:
    """Inverse of point_to_dict."""
    has_split = any(d.get(k) for k in TRAFFIC_KEYS)
    traffic = Traffic(*(float(d.get(k) or 0.0) for k in TRAFFIC_KEYS)) if has_split else None
    return RooflinePoint(
        label=d["name"],
        op=d.get("op", ""),
        phase=Phase(d.get("phase", "unknown")),
        flops=float(d["flops"]),
        bytes=float(d["bytes"]),
        time_s=d.get("time_s"),
        dtype=d.get("dtype", ""),
        source=Source(d.get("source", "analytic")),
        count=int(d.get("count", 1)),
        level=d.get("level", "hbm"),
        traffic=traffic,
        link_bytes=float(d.get("link_bytes") or 0.0),
        bound=Bound(d.get("bound") or ""),
        provenance=d.get("provenance", {}),
    )


def host_platform() -> str:
    """What ``platform.platform()`` says on Linux and macOS ('Linux-6.1.0-x86_64-with-glibc2.36').

    Without its processor field: ``platform.platform()`` asks ``uname -p`` in a subprocess for it
    (a fork and an exec, ~5 ms of a 0.2 s ``rooftop import``) and then leaves it out anyway.
    """
    u = platform.uname()  # its processor is computed only when read (or unpacked, as platform() does)
    libc, version = platform.libc_ver()
    return f"{u.system}-{u.release}-{u.machine}" + (f"-with-{libc}{version}" if libc else "")


def run_to_dict(run: Run) -> dict[str, Any]:
    """The whole artifact as JSON-ready data."""
    out: dict[str, Any] = jsonenc.to_plain(_document(run))
    return out


def _document(run: Run) -> dict[str, Any]:
    """The artifact's sections, not yet JSON-ready (tuples, Structs, NaN)."""
    from rooftop import __version__

    identity = {
        "rooftop": __version__,
        "python": platform.python_version(),
        "platform": host_platform(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        **run.identity,
    }
    results = []
    for r in run.results:
        entry: dict[str, Any] = {
            "workload": r.workload,
            "ops": [point_to_dict(p) for p in r.points],
            "totals": r.totals.to_dict() if r.totals else None,
            "memory": r.memory,
            "findings": [f.to_dict() for f in r.findings],
        }
        entry.update(r.extra)
        results.append(entry)
    return {
        "schema": SCHEMA,
        "command": run.command,
        "identity": identity,
        "hardware": roofs_to_dict(run.roofs),
        "extra_roofs": [roofs_to_dict(r) for r in run.extra_roofs],
        "results": results,
    }


def dumps(run: Run) -> str:
    """Serialise ``run`` to a JSON string (encoded once: the text of ``run_to_dict``, not from it)."""
    return jsonenc.dumps(_document(run), indent=1)


def run_from_dict(data: Any, where: str = "artifact") -> Run:
    """Read an artifact back; unknown schemas and missing keys raise ArtifactError."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        shown = quoted(found) if isinstance(found, str) else repr(found)[:60]
        raise ArtifactError(f"{where}: not a {SCHEMA} artifact (schema: {shown})")
    from rooftop.core.artifact_schema import ArtifactDoc, check_sections  # reading back only: not at import
    from rooftop.core.schema import convert
    from rooftop.core.totals import Totals

    convert(data, ArtifactDoc, f"{where}: malformed {SCHEMA} artifact", ArtifactError)
    check_sections(data, f"{where}: malformed {SCHEMA} artifact", ArtifactError)
    try:
        results = tuple(
            Result(
                workload=r["workload"],
                points=tuple(point_from_dict(p) for p in r["ops"]),
                totals=Totals.from_dict(_nan_for_null(r["totals"])) if r.get("totals") else None,
                memory=r.get("memory", {}),
                findings=tuple(Finding.from_dict(f) for f in r.get("findings", [])),
                extra={k: v for k, v in r.items() if k not in ("workload", "ops", "totals", "memory", "findings")},
            )
            for r in data["results"]
        )
        return Run(
            command=data.get("command", ""),
            roofs=roofs_from_dict(data["hardware"]),
            results=results,
            identity=data.get("identity", {}),
            extra_roofs=tuple(roofs_from_dict(r) for r in data.get("extra_roofs", [])),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ArtifactError(f"{where}: malformed {SCHEMA} artifact ({type(exc).__name__}: {exc})") from exc


def load(path: str | Path) -> Run:
    """Read an artifact file."""
    p = Path(path)
    return run_from_dict(read_json(p, ArtifactError, max_bytes=MAX_ARTIFACT_BYTES), str(p))
