"""`rooftop roofs`: measure this device's sustained roofs, or show the cached ones."""

from __future__ import annotations

import sys
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rooftop.cli.params import Threads
from rooftop.core.jsonenc import dumps
from rooftop.core.roofs import Roofs
from rooftop.report.layout import make_console
from rooftop.units import seconds, si

THREADS_HELP = (
    "CPU threads for the benchmarks (default 1: on a busy 2-core machine 2 threads made results swing 100×, "
    "1 thread is stable); at most the cores this machine gives rooftop."
)


@click.group()
def roofs() -> None:
    """Sustained roofs of this device, measured by micro-benchmarks and cached per device.

    \b
    Examples:
      rooftop roofs measure                # full run (about a minute on a CPU)
      rooftop roofs measure --quick        # ≤ 20 s
      rooftop roofs measure --device cuda  # GEMM bf16/fp16/fp8, HBM, L2, GEMV
      rooftop roofs show                   # the cache, each benchmark's spread
    """


@roofs.command()
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True)
@click.option("--quick", is_flag=True, help="Smaller sizes and budgets (≤ 20 s on a CPU).")
@click.option("--threads", type=Threads(), default=1, show_default=True, help=THREADS_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the roofs as JSON.")
def measure(device: str, quick: bool, threads: int, as_json: bool) -> None:
    """Measure GEMM per dtype, DRAM/HBM and L2 bandwidth and a decode GEMV; cache the result.

    Every benchmark runs like Triton's do_bench (warm-up, repetitions from a time budget, L2
    flush and device events on CUDA) and keeps the whole distribution: the roof is the best
    repetition, the spread (median vs best) is printed beside it.

    \b
    Examples:
      rooftop roofs measure --quick
      rooftop roofs measure --threads 2      # only on an idle machine
      ROOFTOP_CACHE_DIR=./cache rooftop roofs measure --json
    """
    from rooftop.core.artifact import roofs_to_dict
    from rooftop.measure import cache
    from rooftop.measure.roofs import measure_roofs

    console = Console(stderr=True)
    with console.status("measuring roofs") as status:
        measured = measure_roofs(device, threads, quick, progress=lambda m: status.update(f"measuring {m}"))
    path = cache.save_roofs(measured, device, threads)
    click.echo(f"cached {path}", err=True)
    if as_json:
        click.echo(dumps(roofs_to_dict(measured), indent=1))
    else:
        render_roofs(measured, make_console())


@roofs.command()
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True)
@click.option("--threads", type=Threads(), default=1, show_default=True, help=THREADS_HELP)
def show(device: str, threads: int) -> None:
    """Show the cached roofs of this device (and their calibration, if a profile fitted one).

    \b
    Example:
      rooftop roofs show
    """
    from rooftop.measure import cache

    cached = cache.load_roofs(device, threads)
    if cached is None:
        click.echo(f"no cached roofs for {device} with {threads} thread(s); run `rooftop roofs measure`", err=True)
        sys.exit(1)
    render_roofs(cached, make_console())
    calibration = cache.load_calibration(device, threads)
    if calibration:
        click.echo(
            f"calibration from a profile of {calibration.get('model')}: "
            + ", ".join(f"{k} {v:.2f}" for k, v in sorted(calibration["efficiency"].items()))
        )
    model = (calibration or {}).get("decode_model")
    if model:
        click.echo(_decode_model_line(model))


def _decode_model_line(cached: dict[str, Any]) -> str:
    """One line summing up the fitted decode model (times are × the roofline time of the same bytes/FLOPs)."""
    from rooftop.measure.decode_model import DecodeModel, GemmModel

    model = DecodeModel.from_dict(cached)
    gemm = model.classes.get("lm_head") or next(iter(model.classes.values()), None)
    r = model.residual
    errors = sorted(model.train_abs_error or [float("nan")])
    parts = [f"decode model on {len(model.shapes)} shapes"]
    if isinstance(gemm, GemmModel):
        v, p, k = (x if x is not None else float("nan") for x in (gemm.gemv, gemm.packed, gemm.compute))
        parts.append(f"GEMM min({v:.2f}× per row, {p:.2f}× + {k:.2f}× compute)")
    parts.append(f"KV copy {r.kv:.2f}×, fresh pages {r.fresh:.2f}×, fixed {r.const_s * 1e3:+.2f} ms")
    parts.append(f"train median |error| {errors[len(errors) // 2]:.1%}")
    return "; ".join(parts)


def render_roofs(measured: Roofs, console: Console) -> None:
    """Roofs, then every benchmark with its best, median and spread."""
    from rooftop.report.profile import roofs_panel_line

    console.print(escape(roofs_panel_line(measured)))
    table = Table(header_style="bold", box=None, pad_edge=False)
    for name in ("benchmark", "shape", "best", "median", "spread", "reps", "FLOP/s", "B/s"):
        table.add_column(name, justify="left" if name in ("benchmark", "shape") else "right")
    for b in measured.identity.get("benchmarks", []):
        table.add_row(
            b["name"],
            b["shape"],
            seconds(b["best_s"]),
            seconds(b["median_s"]),
            f"{b['spread']:.1%}",
            str(b["reps"]),
            si(b["flop_per_s"], "FLOP/s") if b["flops"] else "",
            si(b["bytes_per_s"], "B/s"),
        )
    console.print(table)
    for source in [r.source for r in measured.compute] + [r.source for r in measured.memory]:
        console.print(f"  {escape(source)}", style="dim")
