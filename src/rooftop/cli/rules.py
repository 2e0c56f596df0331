"""`rooftop rules`: write Prometheus rules (and a Grafana dashboard) for a model on a device."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from rooftop.cli.options import complete_models, device_option
from rooftop.errors import WorkloadError

DURATION = re.compile(r"^(\d+(ms|s|m|h|d|w|y))+$")
# the maps
ENGINES = (
    *("vllm", "sglang", "tgi", "triton", "llamacpp", "trtllm-serve", "lmdeploy", "aphrodite"),
    *("dynamo", "nim", "ray-vllm"),
)


def _duration(option: str, value: str) -> str:
    if not DURATION.match(value):
        raise WorkloadError(f"{option} {value!r}: not a Prometheus duration (e.g. 30s, 1m, 1h30m)")
    return value


def _check(selector: str, durations: tuple[tuple[str, str | None], ...]) -> None:
    """One-line errors for a selector with braces and a duration Prometheus would not read."""
    if "{" in selector or "}" in selector:
        raise WorkloadError(f"--selector {selector!r}: give label matchers without braces, e.g. 'job=\"vllm\"'")
    for option, value in durations:
        if value is not None:
            _duration(option, value)


@click.command()
@click.option(
    "--model",
    "-m",
    required=True,
    shell_complete=complete_models,
    help="Model preset or config.json (rooftop's analytic model).",
)
@device_option
@click.option("--tp", type=click.IntRange(min=1), default=1, show_default=True, help="Tensor-parallel degree.")
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default="vllm",
    show_default=True,
    metavar="ENGINE",
    help=f"Serving engine: {', '.join(sorted(ENGINES))}.",
)
@click.option(
    "--dtype",
    default="bf16",
    show_default=True,
    help="Dtype the engine runs (weights: as a config.json's quantization_config stores them).",
)
@click.option("--peak-tflops", help="Override the compute roof (e.g. a CPU: '2 TFLOP/s').")
@click.option("--bandwidth", help="Override the memory roof, e.g. '50 GB/s'.")
@click.option("--selector", default="", help="PromQL matchers of this model's engine series, e.g. 'job=\"vllm-8b\"'.")
@click.option(
    "--model-label",
    help="Triton: the model whose request counters count (default: the ensemble or BLS model, as watch).",
)
@click.option("--name", help="The 'model' label of every output (default: the model's name).")
@click.option("--window", default="1m", show_default=True, help="Rate window of the recording rules.")
@click.option("--for", "hold", default="10m", show_default=True, help="How long an alert's condition must hold.")
@click.option("--trend", default="10m", show_default=True, help="Span over which TTFT and queue growth are judged.")
@click.option("--interval", help="Evaluation interval of the groups (default: Prometheus's global one).")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the rules here (default: stdout).")
@click.option("--dashboard", type=click.Path(dir_okay=False), help="Also write a Grafana dashboard JSON here.")
def rules(
    model: str,
    hardware: str,
    tp: int,
    engine: str,
    dtype: str,
    peak_tflops: str | None,
    bandwidth: str | None,
    selector: str,
    model_label: str | None,
    name: str | None,
    window: str,
    hold: str,
    trend: str,
    interval: str | None,
    output: str | None,
    dashboard: str | None,
) -> None:
    """Prometheus rules: live MFU/MBU, tokens/s and FLOP/s per instance, and alerts.

    Recording rules (rooftop:*) redo `rooftop watch`'s accounting from the engine's own
    counters; alerting rules flag seed 001's scenarios A-D, KV-cache pressure and queue
    growth, each with its remedy. Load the file with Prometheus's rule_files.

    \b
    Examples:
      rooftop rules -m llama-3.1-8b -H h100-sxm -o rooftop-llama.yml
      rooftop rules -m mixtral-8x7b -H h100-sxm --tp 2 --selector 'job="mixtral"'
      rooftop rules -m llama-3.1-8b --engine sglang --dashboard rooftop.json
    """
    from rooftop.api.rules import rule_set, rules_yaml
    from rooftop.serving.grafana import dashboard as grafana
    from rooftop.serving.promalerts import AlertTiming

    _check(selector, (("--window", window), ("--for", hold), ("--trend", trend), ("--interval", interval)))
    rs = rule_set(
        model,
        hardware,
        engine,
        dtype=dtype,
        tp=tp,
        selector=selector,
        window=window,
        name=name,
        timing=AlertTiming(hold, trend),
        interval=interval,
        peak=peak_tflops,
        bandwidth=bandwidth,
        model_label=model_label,
    )
    text = rules_yaml([rs])
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    if dashboard:
        Path(dashboard).write_text(json.dumps(grafana(), indent=1) + "\n", encoding="utf-8")
