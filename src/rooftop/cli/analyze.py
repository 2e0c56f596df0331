"""`rooftop analyze`: the analytic roofline of a model and workload on a device."""

from __future__ import annotations

import click

from rooftop.api import analyze as run_analysis
from rooftop.api import workloads_for
from rooftop.cli.flags import hint
from rooftop.cli.options import DTYPES, IntList, catalog_roofs, hardware_options
from rooftop.cli.output import emit, output_options
from rooftop.core.artifact import Run
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.models.presets import resolve_model
from rooftop.models.spec import ModelSpec


@click.command()
@click.option(
    "--model",
    "-m",
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
    "--tp", type=click.IntRange(min=1), default=1, show_default=True, help="Tensor-parallel degree (results per GPU)."
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
    type=click.IntRange(min=0),
    default=0,
    help="Prompt tokens already in the KV cache (prefix caching).",
)
@click.option(
    "--quant-group",
    type=click.IntRange(min=1),
    default=128,
    show_default=True,
    help="Group size of weight-only quantisation scales.",
)
@click.option(
    "--memory-utilization",
    type=click.FloatRange(0.01, 1.0),
    default=0.9,
    show_default=True,
    help="Usable share of device memory (vLLM's gpu_memory_utilization).",
)
@click.option(
    "--calibrated",
    is_flag=True,
    help="Use this CPU's measured roofs and the efficiency a `rooftop profile` fitted (threads: 1).",
)
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
    as_json: bool,
    output: str | None,
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
    if phase == "both":
        workloads = workloads_for([Phase.PREFILL], [1], prompt, context, base)
        workloads += workloads_for([Phase.DECODE], batch, prompt, context, base)
    else:
        workloads = workloads_for([Phase(phase)], batch, prompt, context, base)
    emit(_run(spec, roofs, workloads, memory_utilization, calibrated), as_json, output)


def _run(spec: ModelSpec, roofs: Roofs, workloads: list[Workload], memory_utilization: float, calibrated: bool) -> Run:
    """The analytic run, or (--calibrated) its operators timed by this CPU's cached calibration."""
    if not calibrated:
        return run_analysis(spec, roofs, workloads, memory_utilization)
    from rooftop.api.calibrated import analyze_calibrated

    with hint("run `rooftop profile --device cpu`"):
        return analyze_calibrated(spec, workloads, "cpu", 1, memory_utilization)
