"""The hardware catalog: datasheet roofs for 31 accelerators, each number with its source.

Lookup order (later layers override earlier ones, field by field, keyed by ``id``):

1. the package's ``data/accelerators.csv`` (copied from shared/reference, dense peaks);
2. ``~/.config/rooftop/hardware.toml`` (or ``$XDG_CONFIG_HOME/rooftop/hardware.toml``);
3. ``./rooftop-hardware.toml`` in the working directory;
4. the file named by ``$ROOFTOP_HARDWARE`` or passed as ``--catalog FILE``.

A TOML layer holds ``[[device]]`` tables with the CSV's column names (``id``, ``name``,
``memory_gib``, ``hbm_bandwidth_tb_s``, ``bf16_tflops``, ``source_urls`` ...). Columns are in the
units their names say: TB/s and TFLOP/s decimal, memory in GiB, interconnect in GB/s, and the
per-GPU network card (``nic_gbit_s``, the scale-out NIC each GPU has in the vendor's reference
system, per direction) in Gb/s: it becomes the ``network`` bandwidth roof (400 Gb/s = 50 GB/s).
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Annotated, Any

import msgspec

from rooftop.core.roofs import ComputeRoof, MemoryRoof, RoofKind, Roofs
from rooftop.core.safejson import read_toml
from rooftop.core.schema import ShortText, convert
from rooftop.errors import CatalogError, did_you_mean, quoted
from rooftop.hardware.names import model_word, words
from rooftop.units import GIB, GIGA, TERA

# column -> compute roof dtype; all dense TFLOP/s (TOP/s for int8)
COMPUTE_COLUMNS = {
    "fp64_tflops": "fp64",
    "fp32_tflops": "fp32",
    "tf32_tflops": "tf32",
    "bf16_tflops": "bf16",
    "fp16_tflops": "fp16",
    "fp8_tflops": "fp8",
    "int8_tops": "int8",
    "fp4_tflops": "fp4",
}
NUMERIC_COLUMNS = (
    *COMPUTE_COLUMNS,
    "memory_gib",
    "hbm_bandwidth_tb_s",
    "l2_cache_mib",
    "interconnect_gb_s",
    "l2_bandwidth_tb_s",
    "tdp_w",
    "nic_gbit_s",
)


class Entry(msgspec.Struct, frozen=True):
    """One catalog row and the file each of its fields came from."""

    id: str
    fields: dict[str, str]
    origin: dict[str, str]

    def number(self, column: str) -> float | None:
        """The column as a float, or None when blank."""
        raw = self.fields.get(column, "")
        if raw in ("", None):
            return None
        try:
            return float(str(raw).replace(",", ""))
        except ValueError as exc:
            raise CatalogError(f"{self.origin.get(column, '?')}: {self.id}.{column} is not a number: {raw!r}") from exc

    def roofs(self) -> Roofs:
        """Datasheet roofs for this device."""
        source = self.fields.get("source_urls", "") or self.origin.get("id", "")
        kind = RoofKind.DATASHEET
        compute = tuple(
            ComputeRoof(dtype, value * TERA, kind, f"{source} ({column})")
            for column, dtype in COMPUTE_COLUMNS.items()
            if (value := self.number(column)) is not None and value > 0
        )
        memory: list[MemoryRoof] = []
        if (bw := self.number("hbm_bandwidth_tb_s")) is not None:
            memory.append(MemoryRoof("hbm", bw * TERA, kind, f"{source} (hbm_bandwidth_tb_s)"))
        if (l2 := self.number("l2_bandwidth_tb_s")) is not None:
            memory.append(MemoryRoof("l2", l2 * TERA, kind, f"{self.origin.get('l2_bandwidth_tb_s')}"))
        if (link := self.number("interconnect_gb_s")) is not None:
            direction = self.fields.get("interconnect_direction", "")
            # Collectives are timed against the per-direction rate: NVIDIA's 900 GB/s is 450 each way.
            per_direction = link / 2 if "bidirectional" in direction else link
            memory.append(
                MemoryRoof(
                    "link",
                    per_direction * GIGA,
                    kind,
                    f"{source} (interconnect_gb_s={link:g}, {direction or 'direction not stated'}; per direction)",
                )
            )
        if (nic := self.number("nic_gbit_s")) is not None:
            memory.append(
                MemoryRoof(
                    "network",
                    nic * GIGA / 8,
                    kind,
                    f"{self.fields.get('nic_source', '') or source} (nic_gbit_s={nic:g} per GPU, per direction)",
                )
            )
        capacity = self.number("memory_gib")
        return Roofs(
            name=self.id,
            compute=compute,
            memory=tuple(memory),
            capacity_bytes=capacity * GIB if capacity is not None else float("nan"),
            vendor=self.fields.get("vendor", ""),
            identity={
                "name": self.fields.get("name", self.id),
                "verification": self.fields.get("verification", ""),
                "notes": self.fields.get("notes", ""),
            },
        )


# a plain file beside this module, not importlib.resources (core/packaged.py says why)
_PACKAGE_CSV = Path(__file__).with_name("data") / "accelerators.csv"


def _package_rows() -> list[dict[str, str]]:
    text = _PACKAGE_CSV.read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


# column -> greatest accepted value, in the column's unit; every number is finite and > 0
# (leave a column out when the device has no such roof). Bounds are ~1,000x today's largest.
BOUNDS = {
    **dict.fromkeys(COMPUTE_COLUMNS, 1e6),  # TFLOP/s
    "memory_gib": 1e6,
    "hbm_bandwidth_tb_s": 1e4,
    "l2_cache_mib": 1e6,
    "interconnect_gb_s": 1e6,
    "l2_bandwidth_tb_s": 1e5,
    "tdp_w": 1e6,
}
Device = msgspec.defstruct(
    "Device",
    [
        ("id", Annotated[str, msgspec.Meta(min_length=1, max_length=64)]),
        *((c, Annotated[float, msgspec.Meta(gt=0.0, le=high)] | None, None) for c, high in BOUNDS.items()),
        *((c, ShortText | None, None) for c in ("name", "vendor", "source_urls", "notes", "interconnect_direction")),
    ],
    forbid_unknown_fields=False,
)
Layer = msgspec.defstruct("Layer", [("device", list[Device], [])], forbid_unknown_fields=False)  # type: ignore[valid-type]


def _toml_rows(path: Path) -> list[dict[str, str]]:
    data = read_toml(path, CatalogError)
    devices = data.get("device", [])
    if not isinstance(devices, list) or not all(isinstance(d, dict) and "id" in d for d in devices):
        raise CatalogError(f"{path}: expected [[device]] tables, each with an id")
    convert(data, Layer, str(path), CatalogError)
    return [{k: str(v) for k, v in device.items()} for device in devices]


def layer_paths(extra: str | Path | None = None) -> list[Path]:
    """The user layers that exist, in override order (package data comes first, implicitly)."""
    config_home = Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config"))
    candidates = [config_home / "rooftop" / "hardware.toml", Path.cwd() / "rooftop-hardware.toml"]
    env = os.environ.get("ROOFTOP_HARDWARE")
    paths = [p for p in candidates if p.is_file()]
    for explicit in (env, extra):
        if explicit:
            p = Path(explicit)
            if not p.is_file():
                raise CatalogError(f"{p}: hardware catalog file not found")
            paths.append(p)
    return paths


def load_catalog(extra: str | Path | None = None) -> dict[str, Entry]:
    """Every known device, with user layers merged over the package data."""
    entries: dict[str, Entry] = {}

    def merge(rows: list[dict[str, str]], origin: str) -> None:
        for row in rows:
            key = row["id"].strip().lower()
            old = entries.get(key)
            fields = dict(old.fields) if old else {}
            where = dict(old.origin) if old else {}
            for column, value in row.items():
                fields[column] = value
                where[column] = origin
            entries[key] = Entry(key, fields, where)

    merge(_package_rows(), "rooftop/hardware/data/accelerators.csv")
    for path in layer_paths(extra):
        merge(_toml_rows(path), str(path))
    return entries


def get_entry(name: str, extra: str | Path | None = None) -> Entry:
    """One device by exact id; a miss raises CatalogError with suggestions."""
    catalog = load_catalog(extra)
    key = name.strip().lower()
    if key not in catalog:
        raise CatalogError(f"unknown hardware {quoted(name)}{did_you_mean(key, catalog)}; see `rooftop hardware list`")
    return catalog[key]


def get_roofs(name: str, extra: str | Path | None = None) -> Roofs:
    """Datasheet roofs of one device."""
    return get_entry(name, extra).roofs()


def describe(entry: Entry) -> dict[str, Any]:
    """Plain dict of an entry with the file each field came from."""
    return {"id": entry.id, "fields": dict(entry.fields), "origin": dict(entry.origin)}


def devices_named(device_name: str, extra: str | Path | None = None) -> list[str]:
    """Catalog ids a GPU's reported name points to ('NVIDIA A100-SXM4-80GB' -> ['a100-80gb-sxm']).

    The name's first token with a digit (A100, H200, MI300X, 4090) must be a token of the entry's
    name or id; among those entries, the ones sharing most of the name's other tokens (SXM4, 80GB)
    are returned, several when the name does not tell them apart ('NVIDIA H200': the SXM and the
    NVL). Empty when nothing in the catalog carries the model.
    """
    model, named = model_word(device_name), set(words(device_name))
    if not model:
        return []
    scored = []
    for entry in load_catalog(extra).values():
        own = set(words(entry.fields.get("name", ""))) | set(words(entry.id))
        if model in own:
            scored.append((len(named & own), entry.id))
    best = max((score for score, _ in scored), default=0)
    return sorted(key for score, key in scored if score == best)
