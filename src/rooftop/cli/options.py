"""Shared option parsing: integer lists and ranges, dtypes, roofs from flags."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from rooftop.cli.params import MAX_SEQUENCES, Rate
from rooftop.errors import WorkloadError
from rooftop.units import parse_bytes_per_s, parse_flop_per_s

if TYPE_CHECKING:
    from rooftop.core.roofs import Roofs

F = TypeVar("F", bound=Callable[..., Any])


def parse_int_list(text: str, name: str, high: int = MAX_SEQUENCES) -> list[int]:
    """'1,8,64' -> [1, 8, 64]; '1-64' -> powers of two from 1 to 64 (end included); '4k' = 4096.

    Every value is at most ``high`` (2**63 would wrap negative in numpy).
    """
    values: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        match = re.fullmatch(r"(\d+[kK]?)\s*-\s*(\d+[kK]?)", part)
        if match:
            low, top = (_int(g, name, high) for g in match.groups())
            if low > top:
                raise WorkloadError(f"--{name} range {part!r} is inverted (start > end)")
            value = low
            while value < top:
                values.append(value)
                value = max(value * 2, 1)
            values.append(top)
        else:
            values.append(_int(part, name, high))
    if not values:
        raise WorkloadError(f"--{name} is empty")
    return sorted(set(values))


def _int(text: str, name: str, high: int) -> int:
    try:
        value = int(text[:-1]) * 1024 if text[-1:] in "kK" else int(text)
    except ValueError:
        raise WorkloadError(f"--{name}: {text!r} is not an integer") from None
    if value < 0:
        raise WorkloadError(f"--{name}: {value} is negative")
    if value > high:
        raise WorkloadError(f"--{name}: {value} is above the bound {high:,}")
    return value


class IntList(click.ParamType):  # type: ignore[type-arg]
    """A click type for parse_int_list; errors stay one line."""

    name = "LIST"

    def __init__(self, option: str) -> None:
        self.option = option

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> list[int]:
        if isinstance(value, list):
            return value
        try:
            return parse_int_list(str(value), self.option)
        except WorkloadError as exc:
            self.fail(str(exc).removeprefix(f"--{self.option}: "), param, ctx)


def complete_models(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion of --model: preset names (a path completes as a file)."""
    from click.shell_completion import CompletionItem

    from rooftop.models.presets import preset_names

    names = [n for n in preset_names() if n.startswith(incomplete.lower())]
    return [CompletionItem(n) for n in names] or [CompletionItem(incomplete, type="file")]


def complete_devices(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion of --hardware: catalog device names."""
    from click.shell_completion import CompletionItem

    from rooftop.hardware.catalog import load_catalog

    return [CompletionItem(n) for n in sorted(load_catalog()) if n.startswith(incomplete.lower())]


DTYPES = ["fp32", "tf32", "bf16", "fp16", "fp8", "fp8_e4m3", "fp8_e5m2", "int8", "int4", "fp4"]


def hardware_options(default: str | None = "h100-sxm") -> Callable[[F], F]:
    """Add --hardware/-H, --catalog, --peak-tflops and --bandwidth (read back with ``catalog_roofs``)."""

    def decorate(fn: F) -> F:
        for option in reversed(
            (
                click.option(
                    "--hardware",
                    "-H",
                    default=default,
                    show_default=default is not None,
                    help="A catalog device (rooftop hardware list).",
                    shell_complete=complete_devices,
                ),
                click.option(
                    "--catalog", type=click.Path(dir_okay=False), help="An extra TOML hardware catalog layer."
                ),
                click.option(
                    "--peak-tflops",
                    type=Rate(parse_flop_per_s, "RATE"),
                    help="Override every compute roof, e.g. '800' or '800 TFLOP/s'.",
                ),
                click.option(
                    "--bandwidth", type=Rate(parse_bytes_per_s, "RATE"), help="Override the HBM roof, e.g. '3 TB/s'."
                ),
            )
        ):
            fn = option(fn)
        return fn

    return decorate


def catalog_roofs(hardware: str, catalog: str | None, peak: float | str | None, bandwidth: float | str | None) -> Roofs:
    """Catalog roofs with the user's overrides (--peak-tflops, --bandwidth, parsed by ``Rate``) applied."""
    from rooftop.hardware.catalog import get_roofs

    roofs = get_roofs(hardware, catalog)
    if isinstance(peak, str):
        peak = parse_flop_per_s(peak)
    if isinstance(bandwidth, str):
        bandwidth = parse_bytes_per_s(bandwidth)
    return roofs.with_overrides(peak, bandwidth)
