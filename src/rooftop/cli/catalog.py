"""`rooftop hardware list|show` and `rooftop models list|show`: the catalogs."""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from rooftop.core.jsonenc import dumps
from rooftop.hardware.catalog import describe, get_entry, layer_paths, load_catalog
from rooftop.models.presets import load_preset, preset_names, resolve_model
from rooftop.models.spec import ModelSpec
from rooftop.report.layout import Cell, Column, fit_table, make_console
from rooftop.units import GIB, TERA, si


def _layouts(columns: dict[str, Column], *sets: str) -> list[list[Column]]:
    return [[columns[k] for k in keys.split()] for keys in sets]


HARDWARE_LAYOUTS = _layouts(
    {
        "id": Column("id", justify="left"), "name": Column("name", justify="left", shorten=True),
        "memory": Column("memory"), "hbm": Column("hbm", "HBM"), "bf16": Column("bf16"), "fp8": Column("fp8"),
        "ridge": Column("ridge", "ridge bf16"),
    },
    "id name memory hbm bf16 fp8 ridge", "id memory hbm bf16 fp8 ridge", "id hbm bf16 ridge",
)  # fmt: skip
MODEL_LAYOUTS = _layouts(
    {
        "preset": Column("preset", justify="left"), "params": Column("params"), "active": Column("active"),
        "layers": Column("layers"), "hidden": Column("hidden"), "heads": Column("heads", "heads/kv"),
        "kv": Column("kv", "KV B/token (bf16)"), "source": Column("source", justify="left", shorten=True),
    },
    "preset params active layers hidden heads kv source", "preset params active layers hidden heads kv",
    "preset params active layers kv", "preset params kv",
)  # fmt: skip


@click.group()
def hardware() -> None:
    """The accelerator catalog: dense datasheet peaks per dtype, HBM bandwidth, capacity, link.

    Lookup order (later wins): the package's data, ~/.config/rooftop/hardware.toml,
    ./rooftop-hardware.toml, $ROOFTOP_HARDWARE, --catalog FILE. See docs/hardware.md.
    """


@hardware.command("list")
@click.option("--catalog", type=click.Path(dir_okay=False), help="An extra TOML catalog layer.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def hardware_list(catalog: str | None, as_json: bool) -> None:
    """List every known device with its bf16 and fp8 peaks, HBM bandwidth and ridge."""
    entries = load_catalog(catalog)
    if as_json:
        click.echo(dumps([describe(e) for e in entries.values()], indent=1))
        return
    rows: list[dict[str, Cell]] = []
    for e in entries.values():
        r = e.roofs()
        bf16 = r.peak("bf16") if r.has_compute("bf16") else float("nan")
        fp8 = r.peak("fp8") if r.has_compute("fp8") else float("nan")
        hbm = r.bandwidth("hbm") if r.has_memory("hbm") else float("nan")
        rows.append({
            "id": Text(e.id), "name": Text(e.fields.get("name", "")), "memory": f"{r.capacity_bytes / GIB:.0f} GiB",
            "hbm": si(hbm, "B/s"), "bf16": si(bf16, "FLOP/s"), "fp8": si(fp8, "FLOP/s"),
            "ridge": f"{bf16 / hbm:.0f}" if bf16 == bf16 and hbm == hbm else "—",
        })  # fmt: skip
    console = make_console()
    table = fit_table(HARDWARE_LAYOUTS, rows, console.width)
    console.print(table)
    layers = layer_paths(catalog)
    if layers:
        Console(stderr=True).print("user layers: " + ", ".join(str(p) for p in layers), style="dim")


@hardware.command("show")
@click.argument("name")
@click.option("--catalog", type=click.Path(dir_okay=False), help="An extra TOML catalog layer.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def hardware_show(name: str, catalog: str | None, as_json: bool) -> None:
    """Show one device: every roof with its kind and source, and which file each field came from."""
    entry = get_entry(name, catalog)
    if as_json:
        click.echo(dumps(describe(entry), indent=1))
        return
    roofs = entry.roofs()
    console = make_console()
    console.print(
        f"[bold]{escape(entry.id)}[/] — {escape(entry.fields.get('name', ''))}, {roofs.capacity_bytes / GIB:.0f} GiB"
    )
    table = Table(header_style="bold", box=None)
    for col in ("roof", "value", "kind", "source"):
        table.add_column(col, no_wrap=col != "source", overflow="fold")
    for c in roofs.compute:
        table.add_row(f"compute {c.dtype}", f"{c.flop_per_s / TERA:,.1f} TFLOP/s", c.kind.value, escape(c.source))
    for m in roofs.memory:
        table.add_row(f"bandwidth {m.level}", si(m.bytes_per_s, "B/s"), m.kind.value, escape(m.source))
    for c in roofs.compute:
        if roofs.has_memory("hbm"):
            table.add_row(f"ridge {c.dtype}", f"{roofs.ridge(c.dtype):.0f} FLOP/B", "derived", "peak / HBM")
    console.print(table)
    if entry.fields.get("notes"):
        console.print(f"notes: {escape(entry.fields['notes'])}", style="dim")
    origins = sorted(set(entry.origin.values()))
    console.print("fields from: " + ", ".join(escape(o) for o in origins), style="dim")


@click.group()
def models() -> None:
    """Model presets (exact official shapes) and local config.json files."""


@models.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def models_list(as_json: bool) -> None:
    """List the shipped presets with their parameter counts and KV bytes per token (bf16)."""
    specs = [load_preset(n) for n in preset_names()]
    if as_json:
        click.echo(dumps([s.describe() for s in specs], indent=1))
        return
    rows: list[dict[str, Cell]] = [
        {
            "preset": s.name, "params": f"{s.param_count():,}", "active": f"{s.param_count(active=True):,}",
            "layers": str(s.layers), "hidden": str(s.hidden), "kv": f"{s.kv_bytes_per_token(2):,.0f}",
            "heads": _heads(s), "source": Text(s.source),
        }
        for s in specs
    ]  # fmt: skip
    console = make_console()
    console.print(fit_table(MODEL_LAYOUTS, rows, console.width))


@models.command("show")
@click.argument("name_or_path")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def models_show(name_or_path: str, as_json: bool) -> None:
    """Show one preset or local config.json (file or folder) as rooftop reads it."""
    spec = resolve_model(name_or_path)
    if as_json:
        click.echo(dumps(spec.describe(), indent=1))
    else:
        _print_spec(spec.describe())
    for note in spec.notes:
        click.echo(f"note: {note}", err=True)


def _heads(spec: ModelSpec) -> str:
    """'heads/kv' (MLA marked); '—' for a model without attention layers (Mamba)."""
    if not spec.attention_layers:
        return "—"
    return f"{spec.heads}/{spec.kv_heads}" + (" MLA" if spec.mla else "")


def _value(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and key.endswith("params"):
        return f"{value:,} ({si(value, '')})"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _print_spec(d: dict[str, Any]) -> None:
    """A model as `hardware show` prints a device: a heading, a field/value table, the source dimmed."""
    console = make_console()
    console.print(f"[bold]{escape(str(d['name']))}[/] — {si(d['params'], '')} parameters", highlight=False)
    table = Table(header_style="bold", box=None)
    table.add_column("field")
    table.add_column("value", justify="right")
    for key, value in d.items():
        if key in ("name", "source"):
            continue
        if isinstance(value, dict):
            for sub, v in value.items():
                table.add_row(f"{key} {sub}".replace("_", " "), _value(sub, v))
        else:
            table.add_row(key.replace("_", " "), _value(key, value))
    console.print(table)
    console.print("source: " + escape(str(d.get("source", ""))), style="dim", highlight=False)
