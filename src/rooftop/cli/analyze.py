"""`rooftop analyze`: the analytic roofline of a model and workload on a device."""

from __future__ import annotations

from typing import Any

import click

from rooftop.api import analyze as run_analysis
from rooftop.api import workloads_for
from rooftop.cli.flags import hint
from rooftop.cli.options import DTYPES, IntList, catalog_roofs, complete_models, hardware_options
from rooftop.cli.output import emit, output_options
from rooftop.cli.params import MAX_TOKENS, MAX_TP, FiniteFloatRange
from rooftop.cli.techniques import build, technique_options
from rooftop.core.artifact import Run
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError
from rooftop.models.presets import resolve_model
from rooftop.models.spec import ModelSpec
from rooftop.units import parse_seconds


def _seconds(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    return None if value is None else parse_seconds(value)


@click.command()
@click.option(
    "--model",
    "-m",
    shell_complete=complete_models,
    default="llama-3.1-8b",
    show_default=True,
    help="A preset name (rooftop models list) or a local config.json file or folder.",
)
@hardware_options()
@click.option(
    "--phase",
    type=click.Choice(["prefill", "decode", "both"]),
    default="both",
    show_default=True,
    help="both = one request's prefill (TTFT, batch 1) then decode at each --batch.",
)
@click.option(
    "--batch",
    "-b",
    type=IntList("batch"),
    default="1,64",
    show_default=True,
    help="Sequences per step: '1,8,64' or a range '1-512' (powers of two).",
)
@click.option(
    "--prompt", "-p", type=IntList("prompt"), default="2048", show_default=True, help="Prompt tokens for prefill."
)
@click.option(
    "--context",
    "-c",
    type=IntList("context"),
    default="2048",
    show_default=True,
    help="Cached tokens at decode (each step reads them and appends one).",
)
@click.option(
    "--dtype",
    type=click.Choice(DTYPES),
    default="bf16",
    show_default=True,
    help="Weights, activations and KV cache, unless set apart below.",
)
@click.option("--weight-dtype", type=click.Choice(DTYPES), help="Weights (int8/int4 = W8A16/W4A16 with group scales).")
@click.option("--kv-dtype", type=click.Choice(DTYPES), help="KV cache.")
@click.option("--act-dtype", type=click.Choice(DTYPES), help="Activations.")
@click.option(
    "--compute-dtype",
    type=click.Choice(DTYPES),
    help="Compute roof of the GEMMs (default: fp8 for fp8 weights, else the activation dtype).",
)
@click.option(
    "--tp",
    type=click.IntRange(1, MAX_TP),
    default=1,
    show_default=True,
    help="Tensor-parallel degree (results per GPU).",
)
@click.option(
    "--attention",
    type=click.Choice(["flash", "materialized"]),
    default="flash",
    show_default=True,
    help="flash keeps scores in SRAM; materialized writes them to HBM.",
)
@click.option("--no-causal", is_flag=True, help="Count the full score rectangle (kernels that mask after computing).")
@click.option(
    "--cached-prefix",
    type=click.IntRange(0, MAX_TOKENS),
    default=0,
    help="Prompt tokens already in the KV cache (prefix caching).",
)
@click.option(
    "--quant-group",
    type=click.IntRange(1, MAX_TOKENS),
    default=128,
    show_default=True,
    help="Group size of weight-only quantisation scales.",
)
@click.option(
    "--memory-utilization",
    type=FiniteFloatRange(0.01, 1.0),
    default=0.9,
    show_default=True,
    help="Usable share of device memory (vLLM's gpu_memory_utilization).",
)
@click.option(
    "--calibrated",
    is_flag=True,
    help="Use this CPU's measured roofs and the efficiency a `rooftop profile` fitted (threads: 1).",
)
@technique_options
@click.option(
    "--output-tokens",
    type=click.IntRange(min=1),
    default=256,
    show_default=True,
    help="Output tokens per request (disaggregation pools, what-if).",
)
@click.option("--slo-ttft", callback=_seconds, help="TTFT objective for goodput (what-if), e.g. '500ms'.")
@click.option("--slo-tpot", callback=_seconds, help="TPOT objective for goodput and decode pools, e.g. '50ms'.")
@output_options
def analyze(
    model: str,
    hardware: str,
    phase: str,
    batch: list[int],
    prompt: list[int],
    context: list[int],
    dtype: str,
    weight_dtype: str | None,
    kv_dtype: str | None,
    act_dtype: str | None,
    compute_dtype: str | None,
    tp: int,
    attention: str,
    no_causal: bool,
    cached_prefix: int,
    quant_group: int,
    peak_tflops: str | None,
    bandwidth: str | None,
    catalog: str | None,
    memory_utilization: float,
    calibrated: bool,
    output_tokens: int,
    slo_ttft: float | None,
    slo_tpot: float | None,
    as_json: bool,
    output: str | None,
    **flags: Any,
) -> None:
    """Analytic roofline: per-operator FLOPs, bytes, intensity, time at the roofs and the bound.

    \b
    Examples:
      rooftop analyze                                    # the teaching default
      rooftop analyze -m llama-2-70b --dtype fp16 --phase decode -b 1
      rooftop analyze -m llama-3.1-70b -H h100-sxm --tp 4 --phase decode -b 1,16,128 -c 8192
      rooftop analyze -m ./my-model/config.json --weight-dtype int4 --phase decode
      rooftop analyze -m deepseek-v3 -H h200-sxm --weight-dtype fp8 --tp 8 --json > run.json
      rooftop analyze -m llama-cpu-small --dtype fp32 --phase decode -b 1,32 --calibrated  # after `rooftop profile`
      rooftop analyze -m llama-3.1-8b -H h100-sxm --phase decode -b 1 --what-if
      rooftop analyze --phase decode -b 1 --spec-k 4 --spec-alpha 0.8 --drafter head
      rooftop analyze --phase decode -b 64 -p 8192 --chunk 2048
      rooftop analyze -m deepseek-v3 -H h200-sxm --weight-dtype fp8 --phase decode -b 32 --ep 8
      rooftop analyze -m llama-3.1-70b --tp 4 --phase decode -b 64 --rate 20 --slo-tpot 50ms
    """
    spec = resolve_model(model)
    roofs = catalog_roofs(hardware, catalog, peak_tflops, bandwidth)
    base = Workload(
        weight_dtype=weight_dtype or dtype,
        act_dtype=act_dtype or dtype,
        kv_dtype=kv_dtype or dtype,
        compute_dtype=compute_dtype or "",
        tp=tp,
        attention=attention,
        causal=not no_causal,
        cached_prefix=cached_prefix,
        quant_group_size=quant_group,
        prompt=max(prompt),
    )
    workloads = _workloads(phase, batch, prompt, context, base)
    techniques = build(flags, SLO(slo_ttft, slo_tpot), output_tokens, memory_utilization)
    if techniques.asked:
        if calibrated:
            raise WorkloadError("--calibrated takes no technique or --what-if flags (see `rooftop profile --what-if`)")
        from rooftop.api.techniques import analyze_techniques
        from rooftop.report.whatif import render_analysis

        emit(analyze_techniques(spec, roofs, workloads, techniques), as_json, output, render=render_analysis)
        return
    emit(_run(spec, roofs, workloads, memory_utilization, calibrated), as_json, output)


def _workloads(phase: str, batch: list[int], prompt: list[int], context: list[int], base: Workload) -> list[Workload]:
    """both: one prompt's prefill at batch 1, then decode at each batch; else the phase's grid."""
    if phase == "both":
        workloads = workloads_for([Phase.PREFILL], [1], prompt, context, base)
        return workloads + workloads_for([Phase.DECODE], batch, prompt, context, base)
    return workloads_for([Phase(phase)], batch, prompt, context, base)


def _run(spec: ModelSpec, roofs: Roofs, workloads: list[Workload], memory_utilization: float, calibrated: bool) -> Run:
    """The analytic run, or (--calibrated) its operators timed by this CPU's cached calibration."""
    if not calibrated:
        return run_analysis(spec, roofs, workloads, memory_utilization)
    from rooftop.api.calibrated import analyze_calibrated

    with hint("run `rooftop profile --device cpu`"):
        return analyze_calibrated(spec, workloads, "cpu", 1, memory_utilization)
