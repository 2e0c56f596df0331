"""`rooftop sweep`: batch × context capacity grid, SLOs, and the goodput-optimal operating point."""

from __future__ import annotations

import csv
import io
from typing import Any

import click
from rich.console import Console

from rooftop.api.sweep import COLUMNS, Cohort, parse_cohort, sweep
from rooftop.cli import options
from rooftop.cli.output import emit, output_options
from rooftop.cli.params import OutputFile
from rooftop.cli.techniques import build, technique_options
from rooftop.core.artifact import Run
from rooftop.core.atomic import write_atomic
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.errors import ReportError, WorkloadError
from rooftop.models.presets import resolve_model


def write_csv(run: Run, path: str) -> None:
    """Every cell of every cohort as CSV (raw SI numbers), with a cohort column."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(["cohort", *COLUMNS])
    for result in run.results:
        for row in result.extra["sweep"]["rows"]:
            writer.writerow([result.workload.get("cohort", ""), *row])
    write_atomic(path, buffer.getvalue(), ReportError)


def render_sweep(run: Run, console: Console) -> None:
    """Cells at each cohort's contexts, then the findings."""
    from rooftop.report.sweep_table import render_sweep_run
    from rooftop.report.whatif import render_result_extras

    render_sweep_run(run, console)
    for result in run.results:
        render_result_extras(result, console)


@click.command()
@options.model_option("llama-3.1-8b", "A preset or a local config.json.")
@options.hardware_options()
@options.int_list_option(
    "--batch", "-b", default="1-512", help="Sequences per decode step: '1,8,64' or '1-512' (powers of two)."
)
@options.int_list_option(
    "--context",
    "-c",
    help="Cached tokens at decode: '512-32768' (default: prompt + output tokens of each cohort).",
)
@options.tokens_option("--prompt", "-p", default=2048, help="Prompt tokens (TTFT = prefill time of one prompt).")
@options.tokens_option("--output-tokens", default=256, help="Output tokens per request.")
@click.option(
    "--cohort",
    "cohorts",
    multiple=True,
    help="A prompt/output cohort 'NAME=PROMPT:OUTPUT' (repeatable; replaces --prompt/--output-tokens).",
)
@options.slo_options(
    "Time-to-first-token objective with a unit, e.g. '500ms'.",
    "Time-per-output-token objective with a unit, e.g. '50ms'.",
)
@options.tokens_option(
    "--shared-prefix",
    low=0,
    default=0,
    help="Prompt tokens shared by every request (system prompt, tool schema): prefix-cached, KV held once.",
)
@options.dtype_options(
    "Weights, activations and KV cache.",
    "Every weight, experts included [default: as a config.json's quantization_config stores them, else --dtype].",
)
@options.tp_option("Tensor-parallel degree.")
@options.memory_utilization_option
@click.option("--csv", "csv_path", type=OutputFile(), help="Write every cell as CSV.")
@technique_options
@output_options
def sweep_command(
    model: str,
    hardware: str,
    batch: list[int],
    context: list[int] | None,
    prompt: int,
    output_tokens: int,
    cohorts: tuple[str, ...],
    slo_ttft: float | None,
    slo_tpot: float | None,
    shared_prefix: int,
    dtype: str,
    weight_dtype: str | None,
    expert_dtype: str | None,
    kv_dtype: str | None,
    tp: int,
    catalog: str | None,
    peak_tflops: str | None,
    bandwidth: str | None,
    memory_utilization: float,
    csv_path: str | None,
    as_json: bool,
    output: str | None,
    **flags: Any,
) -> None:
    """Capacity sweep: decode over batch × context, TTFT/TPOT against SLOs, goodput-optimal point.

    Per cell: time, FLOP/s, B/s, intensity, TTFT, TPOT, whether the KV cache admits the batch,
    whether the SLOs hold, and goodput (output tokens/s of cells that meet every SLO). The
    findings (seed 003 §15) name the linear-throughput region, HBM saturation, the batch where
    the GEMMs cross the ridge, the KV admission limit per context, and the operating point that
    maximises goodput — not the right-most point. See docs/sweep.md.

    \b
    Examples:
      # llama-3.1-8b on h100-sxm, prompt 2048, output 256:
      rooftop sweep --slo-tpot 50ms
      rooftop sweep -b 1-512 -c 512-32768 --slo-ttft 500ms --slo-tpot 50ms \\
          --report sweep.html
      rooftop sweep --cohort chat=1024:256 --cohort report=8192:2048 \\
          --slo-tpot 40ms
      rooftop sweep --shared-prefix 1024 --prompt 4096 --csv cells.csv
      rooftop sweep --slo-tpot 30ms --spec-k 4 --spec-alpha 0.8 --what-if
    """
    spec = resolve_model(model)
    roofs = options.catalog_roofs(hardware, catalog, peak_tflops, bandwidth)
    groups = [parse_cohort(c) for c in cohorts] or [Cohort(prompt, output_tokens)]
    base = Workload(
        **options.workload_dtypes(dtype, weight_dtype, kv_dtype, expert_dtype=expert_dtype, stored=spec.stored),
        tp=tp,
        cached_prefix=shared_prefix,
        prompt=min(g.prompt for g in groups),
    )
    slo = SLO(slo_ttft, slo_tpot)
    techniques = build(flags, slo, groups[0].output_tokens, memory_utilization)
    if techniques.pp or techniques.disaggregate:
        raise WorkloadError("sweep takes --spec-k, --ep, --chunk and --what-if; use `analyze` for --pp and --rate")
    run = sweep(spec, roofs, base, batch, context, groups, slo, memory_utilization, techniques)
    if csv_path:
        write_csv(run, csv_path)
        click.echo(f"wrote {csv_path}", err=True)
    emit(run, as_json, output, render=render_sweep)
