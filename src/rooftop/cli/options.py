"""Shared options: integer lists and ranges, the model, batch, dtype, TP, SLO and hardware groups."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

import click

from rooftop.cli.params import MAX_SEQUENCES, MAX_TOKENS, MAX_TP, FiniteFloatRange, Rate
from rooftop.errors import WorkloadError
from rooftop.units import parse_bytes_per_s, parse_flop_per_s, parse_seconds

if TYPE_CHECKING:
    from rooftop.core.roofs import Roofs
    from rooftop.models.quantization import StoredWeights

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


def stack(*options: Callable[[Any], Any]) -> Callable[[F], F]:
    """One decorator for several click options, listed in --help in the order given."""

    def decorate(fn: F) -> F:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def model_option(default: str, help: str) -> Callable[[F], F]:
    """--model/-m: a preset name or a local config (presets complete in the shell)."""
    return click.option("--model", "-m", shell_complete=complete_models, default=default, show_default=True, help=help)


def int_list_option(*decls: str, help: str, default: str | None = None) -> Callable[[F], F]:
    """A list or a range of powers of two (batch, prompt, context), read with ``IntList``."""
    kind = IntList(decls[0].removeprefix("--"))
    return click.option(*decls, type=kind, default=default, show_default=default is not None, help=help)


def tokens_option(
    *decls: str, help: str, default: int | None = None, low: int = 1, show_default: bool = True
) -> Callable[[F], F]:
    """An option counted in tokens per request (prompt, context, output, cached prefix): ``low`` to MAX_TOKENS."""
    return click.option(
        *decls,
        type=click.IntRange(low, MAX_TOKENS),
        default=default,
        show_default=show_default and default is not None,
        help=help,
    )


def dtype_options(dtype_help: str, weight_help: str, *, act: bool = False) -> Callable[[F], F]:
    """--dtype, --weight-dtype and --kv-dtype; with ``act``, --act-dtype and --compute-dtype too."""
    options = [
        click.option("--dtype", type=click.Choice(DTYPES), default="bf16", show_default=True, help=dtype_help),
        click.option("--weight-dtype", type=click.Choice(DTYPES), help=weight_help),
        click.option(
            "--expert-dtype",
            type=click.Choice(DTYPES),
            help="Routed experts' weights [default: as the checkpoint stores them, else --weight-dtype].",
        ),
        click.option("--kv-dtype", type=click.Choice(DTYPES), help="KV cache."),
    ]
    if act:
        options += [
            click.option("--act-dtype", type=click.Choice(DTYPES), help="Activations."),
            click.option(
                "--compute-dtype",
                type=click.Choice(DTYPES),
                help="Compute roof of the GEMMs (default: fp8 for fp8 weights, else the activation dtype).",
            ),
        ]
    return stack(*options)


class WorkloadDtypes(TypedDict):
    """The dtype fields of a ``Workload`` (and its weight-only scale group), keyword arguments to it."""

    weight_dtype: str
    expert_dtype: str
    act_dtype: str
    kv_dtype: str
    compute_dtype: str
    quant_group_size: int


def workload_dtypes(
    dtype: str,
    weight_dtype: str | None,
    kv_dtype: str | None,
    act_dtype: str | None = None,
    compute_dtype: str | None = None,
    *,
    expert_dtype: str | None = None,
    quant_group: int | None = None,
    stored: StoredWeights | None = None,
) -> WorkloadDtypes:
    """The Workload dtype fields from ``dtype_options``: each one set apart, else --dtype (compute: derived).

    Weights not set apart are taken as the checkpoint stores them (``stored``, its
    quantization_config: gpt-oss's MXFP4 experts), else --dtype; --weight-dtype sets every weight,
    experts included, unless --expert-dtype sets those apart. The scale group is --quant-group,
    else the checkpoint's, else 128.
    """
    from rooftop.models.quantization import weight_dtypes

    weights, experts, group = weight_dtypes(dtype, weight_dtype, expert_dtype, quant_group, stored)
    return WorkloadDtypes(
        weight_dtype=weights,
        expert_dtype=experts,
        act_dtype=act_dtype or dtype,
        kv_dtype=kv_dtype or dtype,
        compute_dtype=compute_dtype or "",
        quant_group_size=group,
    )


def tp_option(help: str) -> Callable[[F], F]:
    """--tp: the tensor-parallel degree, 1 to MAX_TP."""
    return click.option("--tp", type=click.IntRange(1, MAX_TP), default=1, show_default=True, help=help)


memory_utilization_option = click.option(
    "--memory-utilization",
    type=FiniteFloatRange(0.01, 1.0),
    default=0.9,
    show_default=True,
    help="Usable share of device memory (vLLM's gpu_memory_utilization).",
)


def _seconds(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    return None if value is None else parse_seconds(value)


def slo_options(ttft_help: str, tpot_help: str) -> Callable[[F], F]:
    """--slo-ttft and --slo-tpot, durations with a unit ('500ms'), read as seconds."""
    return stack(
        click.option("--slo-ttft", callback=_seconds, help=ttft_help),
        click.option("--slo-tpot", callback=_seconds, help=tpot_help),
    )


def hardware_options(default: str | None = "h100-sxm") -> Callable[[F], F]:
    """Add --hardware/-H, --catalog, --peak-tflops and --bandwidth (read back with ``catalog_roofs``)."""
    return stack(
        click.option(
            "--hardware",
            "-H",
            default=default,
            show_default=default is not None,
            help="A catalog device (rooftop hardware list).",
            shell_complete=complete_devices,
        ),
        click.option("--catalog", type=click.Path(dir_okay=False), help="An extra TOML hardware catalog layer."),
        click.option(
            "--peak-tflops",
            type=Rate(parse_flop_per_s, "RATE"),
            help="Override every compute roof, e.g. '800' or '800 TFLOP/s'.",
        ),
        click.option("--bandwidth", type=Rate(parse_bytes_per_s, "RATE"), help="Override the HBM roof, e.g. '3 TB/s'."),
    )


# the live commands (bench, watch, rules) take a device only: their roofs come from the catalog entry
device_option = click.option(
    "--hardware",
    "-H",
    default="h100-sxm",
    show_default=True,
    shell_complete=complete_devices,
    help="Catalog device for the roofs.",
)


def catalog_roofs(hardware: str, catalog: str | None, peak: float | str | None, bandwidth: float | str | None) -> Roofs:
    """Catalog roofs with the user's overrides (--peak-tflops, --bandwidth, parsed by ``Rate``) applied."""
    from rooftop.hardware.catalog import get_roofs

    roofs = get_roofs(hardware, catalog)
    if isinstance(peak, str):
        peak = parse_flop_per_s(peak)
    if isinstance(bandwidth, str):
        bandwidth = parse_bytes_per_s(bandwidth)
    return roofs.with_overrides(peak, bandwidth)
