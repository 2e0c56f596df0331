"""`rooftop import`: Kineto traces, Nsight Compute CSVs and nsys summaries as measured roofline points."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import click

from rooftop.cli.options import catalog_roofs, hardware_options
from rooftop.cli.output import emit, output_options

# rich, the readers and the renderer load when used: `rooftop import x --json | jq` starts fast.


@contextmanager
def _progress() -> Iterator[Any]:
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn

    console = Console(stderr=True)
    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), console=console, transient=True,
        disable=not console.is_terminal,
    ) as bar:  # fmt: skip
        task = bar.add_task("reading", total=None)

        def report(path: str, events: int) -> None:
            bar.update(task, description=f"reading {path}: {events:,} events")

        yield report


@click.command(name="import")
@click.argument("path", type=click.Path(exists=True))
@hardware_options(default=None)
@click.option("--top", type=click.IntRange(min=1), default=15, show_default=True, help="Points shown per file.")
@click.option(
    "--kernel-classes",
    type=click.Path(exists=True, dir_okay=False),
    help="A TOML of extra kernel classes/collectives, tried first (default: $ROOFTOP_KERNEL_CLASSES).",
)
@click.option(
    "--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, help="Files read in parallel (processes)."
)
@output_options
def import_(
    path: str,
    hardware: str | None,
    catalog: str | None,
    peak_tflops: str | None,
    bandwidth: str | None,
    top: int,
    kernel_classes: str | None,
    jobs: int,
    as_json: bool,
    output: str | None,
) -> None:
    """Import what a profiler already captured and place it on the roofline.

    PATH is a file or a folder: one result per rank of a folder of per-rank traces, and per GPU
    of a file that holds several (one process driving them, or an nsys report).
    The format is recognised from the content:

    \b
      Kineto / PyTorch-profiler trace  .json or .json.gz (export_chrome_trace)
      Nsight Compute CSV               ncu --csv --page raw ... or --page details
      Nsight Systems GPU trace         nsys stats --report cuda_gpu_trace \\
                                           --format csv
      Nsight Systems kernel summary    nsys stats --report cuda_gpu_kern_sum \\
                                           --format csv

    Traces give a timeline (busy, idle, largest gap and its cause, NCCL time and its overlap
    with compute, launch delay, CUDA-graph replays, per-ProfilerStep breakdown, the last step
    included) and points per (CPU op, kernel) with FLOPs and bytes from the ops' shapes.
    An nsys GPU trace gives the same timeline without its host side (no launch calls: gaps
    are not split by cause) and timed points per kernel, copy and memset.
    Nsight Compute gives one point per kernel and memory level (DRAM as hbm, L2, L1).
    Without --hardware, roofs come from the ncu roofline section when exported; else none,
    and the roofs line names the catalog devices the trace's GPU points to (pass -H h200-sxm).

    \b
    Examples:
      rooftop import trace.json.gz --hardware a100-80gb-sxm
      rooftop import traces/ -H h100-sxm --json > run.json   # one result per rank
      rooftop import traces/ -H h100-sxm --jobs 8            # 8 ranks at a time
      rooftop import ncu.csv -H h100-sxm
      rooftop import report_cuda_gpu_trace.csv -H h100-sxm
      rooftop import decode_cuda_gpu_kern_sum.csv
    """
    if kernel_classes:
        from rooftop.torchops.kernel_classes import use_user_classes

        use_user_classes(kernel_classes)
    roofs = catalog_roofs(hardware, catalog, peak_tflops, bandwidth) if hardware else None
    if not hardware and (peak_tflops or bandwidth):
        raise click.UsageError("--peak-tflops and --bandwidth override catalog roofs: pass --hardware too")
    from rooftop.api.ingest import import_path

    with _progress() as report:
        run = import_path(path, roofs, report, jobs)
    emit(run, as_json, output, render=partial(_render, top=top))


def _render(run, console, top: int) -> None:  # type: ignore[no-untyped-def]
    from rooftop.report.imported import render_import

    render_import(run, console, top)
