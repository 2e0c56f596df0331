"""`rooftop hardware list|show` and `rooftop models list|show`: the catalogs."""

from __future__ import annotations

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rooftop.core.jsonenc import dumps
from rooftop.hardware.catalog import describe, get_entry, layer_paths, load_catalog
from rooftop.models.presets import load_preset, preset_names, resolve_model
from rooftop.units import GIB, TERA, si


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
    table = Table(header_style="bold", box=None)
    for col in ("id", "name", "memory", "HBM", "bf16", "fp8", "ridge bf16"):
        table.add_column(col, justify="left" if col in ("id", "name") else "right")
    for e in entries.values():
        r = e.roofs()
        bf16 = r.peak("bf16") if r.has_compute("bf16") else float("nan")
        fp8 = r.peak("fp8") if r.has_compute("fp8") else float("nan")
        hbm = r.bandwidth("hbm") if r.has_memory("hbm") else float("nan")
        table.add_row(
            escape(e.id),
            escape(e.fields.get("name", "")),
            f"{r.capacity_bytes / GIB:.0f} GiB",
            si(hbm, "B/s"),
            si(bf16, "FLOP/s"),
            si(fp8, "FLOP/s"),
            f"{bf16 / hbm:.0f}" if bf16 == bf16 and hbm == hbm else "—",
        )
    Console().print(table)
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
    console = Console()
    console.print(
        f"[bold]{escape(entry.id)}[/] — {escape(entry.fields.get('name', ''))}, {roofs.capacity_bytes / GIB:.0f} GiB"
    )
    table = Table(header_style="bold", box=None)
    for col in ("roof", "value", "kind", "source"):
        table.add_column(col)
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
    table = Table(header_style="bold", box=None)
    for col in ("preset", "params", "active", "layers", "hidden", "heads/kv", "KV B/token (bf16)", "source"):
        table.add_column(col, justify="left" if col in ("preset", "source") else "right")
    for s in specs:
        table.add_row(
            s.name,
            f"{s.param_count():,}",
            f"{s.param_count(active=True):,}",
            str(s.layers),
            str(s.hidden),
            f"{s.heads}/{s.kv_heads}" + (" MLA" if s.mla else ""),
            f"{s.kv_bytes_per_token(2):,.0f}",
            escape(s.source),
        )
    Console().print(table)


@models.command("show")
@click.argument("name_or_path")
def models_show(name_or_path: str) -> None:
    """Show one preset or local config.json (file or folder) as rooftop reads it."""
    spec = resolve_model(name_or_path)
    click.echo(dumps(spec.describe(), indent=1))
    for note in spec.notes:
        click.echo(f"note: {note}", err=True)
