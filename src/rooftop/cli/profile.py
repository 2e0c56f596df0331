"""`rooftop profile`: profile a real PyTorch model, measured next to analytic, on measured roofs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from rooftop.cli.options import int_list_option, model_option, tokens_option
from rooftop.cli.output import emit, output_options, requested_files
from rooftop.cli.params import MAX_STEPS, OutputFile, Threads
from rooftop.cli.roofs import THREADS_HELP
from rooftop.core.artifact import Run

if TYPE_CHECKING:
    from rooftop.api.profile import ProfileRequest


@click.command()
@model_option("llama-cpu-small", "A preset (rooftop models list) or a folder/config.json; built with random weights.")
@click.option(
    "--device",
    default="auto",
    show_default=True,
    help="auto (the GPU when torch sees one, else the CPU), cpu or cuda.",
)
@click.option(
    "--dtype",
    type=click.Choice(["fp32", "bf16", "fp16"]),
    default="fp32",
    show_default=True,
    help="Weights, activations and KV cache (fp32 on CPUs without bf16 units).",
)
@int_list_option("--batch", "-b", default="1", help="Sequences: '1' or '1,16' (one profile each).")
@tokens_option(
    "--prompt",
    "-p",
    default=512,
    help="Prompt tokens (prefill); decode runs at this context unless --context is given.",
)
@tokens_option(
    "--context",
    "-c",
    help="Cached tokens at decode (the cache is filled by an unprofiled prefill of this length).",
)
@click.option(
    "--steps", type=click.IntRange(1, MAX_STEPS), default=16, show_default=True, help="Decode steps profiled."
)
@click.option("--threads", type=Threads(), default=1, show_default=True, help=THREADS_HELP)
@click.option("--weights", type=click.Path(file_okay=False), help="Load real *.safetensors from this folder.")
@click.option(
    "--trace",
    "trace_path",
    type=OutputFile(),
    help="Where the torch trace goes (open it in Perfetto). Default: beside -o/--report/--plot, "
    "named after it (run.json -> run-trace.json.gz), else rooftop-trace.json.gz in the cache "
    "folder ($ROOFTOP_CACHE_DIR, default ~/.cache/rooftop). The path is printed on stderr.",
)
@click.option("--remeasure-roofs", is_flag=True, help="Measure quick roofs again instead of using the cache.")
@click.option("--no-calibrate", is_flag=True, help="Do not store the fitted calibration with the roofs.")
@click.option(
    "--what-if",
    "what_if",
    is_flag=True,
    help="Then run batch 1→8, fp32→bf16 and a chunked prompt here: predicted vs measured speed-up.",
)
@output_options
def profile(
    model: str,
    device: str,
    dtype: str,
    batch: list[int],
    prompt: int,
    context: int | None,
    steps: int,
    threads: int,
    weights: str | None,
    trace_path: str | None,
    remeasure_roofs: bool,
    no_calibrate: bool,
    what_if: bool,
    as_json: bool,
    output: str | None,
) -> None:
    """Profile a model for real: prefill and decode under torch.profiler, per operator.

    Builds the model from its config with random weights (same shapes, kernels and bytes as the
    trained one; no download), warms up, then profiles one prefill and --steps decode steps with a
    KV cache. Each operator (q/k/v/o, attention, mlp, norms, lm_head, kv-append) is a measured
    point beside the analytic point for the same workload, both against this device's measured
    roofs (measured quickly and cached on first use). Also reports the time between operators,
    the KV-cache copies and what no operator accounts for; fits a per-operator efficiency that
    `rooftop analyze --calibrated` uses.

    \b
    Examples:
      rooftop profile                     # small Llama on this CPU (≤ 60 s)
      rooftop profile -m llama-3.2-1b --device cuda --dtype bf16 -b 1,16 \\
          -p 512 -c 2048
      rooftop profile -m ./my-model       # a folder with config.json
      # real safetensors (MoE routing realistic):
      rooftop profile -m ./my-model --weights ./my-model
      rooftop profile --json -o profile.json
      rooftop profile --what-if           # how far to trust predicted remedies
    """
    from rooftop.api.profile import ProfileRequest, default_trace_path

    request = ProfileRequest(
        model=model,
        device=device,
        dtype=dtype,
        prompt=prompt,
        context=context,
        decode_steps=steps,
        threads=threads,
        trace_path=Path(trace_path) if trace_path else default_trace_path(_first_output(output)),
        weights=weights,
        remeasure_roofs=remeasure_roofs,
        calibrate=not no_calibrate,
    )
    run = _measure(request, batch, what_if)
    emit(run, as_json, output, render=_renderer(what_if))
    _finish(run)


def _measure(request: ProfileRequest, batch: list[int], what_if: bool) -> Run:
    """Profile each batch (then, with --what-if, each remedy), the progress on stderr."""
    from rooftop.api.profile import profile_batches

    with Console(stderr=True).status("profiling") as status:
        run = profile_batches(request, batch, progress=lambda m: status.update(m))
        if what_if and not run.identity.get("interrupted"):
            from rooftop.api.whatif_measured import attach_measured

            run = attach_measured(run, request, progress=lambda m: status.update(m))
    return run


def _renderer(what_if: bool) -> Callable[[Run, Console], None]:
    """The profile table, with the measured what-if beside it when asked."""
    from rooftop.report.profile import render_profile

    if not what_if:
        return render_profile
    from rooftop.report.whatif import with_measured

    return with_measured(render_profile)


def _finish(run: Run) -> None:
    """Say where each torch trace went; exit 130 (after reporting) when Ctrl-C cut the run short."""
    traces = run.identity.get("trace")
    for trace in traces if isinstance(traces, list) else [traces]:
        click.echo(f"wrote {trace} (torch trace)", err=True)
    if str(run.identity.get("calibration", "")).startswith("interrupted"):
        click.echo("rooftop: interrupted during calibration: the profile is reported, no calibration stored", err=True)
        raise SystemExit(130)
    if run.identity.get("interrupted"):
        kept = sum(r.extra.get("profile", {}).get("steps", 0) for r in run.results)
        click.echo(f"rooftop: interrupted: reported the {kept} step(s) measured before Ctrl-C", err=True)
        raise SystemExit(130)


def _first_output(output: str | None) -> str | None:
    """The first file the command was asked to write (-o, then --report, then --plot), if any."""
    files = requested_files()
    return output or files["report"] or files["plot"]
