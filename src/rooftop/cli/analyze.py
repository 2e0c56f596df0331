"""`rooftop analyze`: the analytic roofline of a model and workload on a device."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from rooftop.api import analyze as run_analysis
from rooftop.api import workloads_for
from rooftop.cli import options
from rooftop.cli.flags import hint
from rooftop.cli.output import emit, output_options
from rooftop.cli.params import MAX_TOKENS
from rooftop.cli.techniques import build, technique_options
from rooftop.core.artifact import Run
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError
from rooftop.models.presets import resolve_model
from rooftop.models.spec import ModelSpec

if TYPE_CHECKING:
    from rooftop.api.techniques import Techniques


@click.command()
@options.model_option("llama-3.1-8b", "A preset name (rooftop models list) or a local config.json file or folder.")
@options.hardware_options()
@click.option(
    "--phase",
    type=click.Choice(["prefill", "decode", "both"]),
    default="both",
    show_default=True,
    help="both = one request's prefill (TTFT, batch 1) then decode at each --batch.",
)
@options.int_list_option(
    "--batch", "-b", default="1,64", help="Sequences per step: '1,8,64' or a range '1-512' (powers of two)."
)
@options.int_list_option("--prompt", "-p", default="2048", help="Prompt tokens for prefill.")
@options.int_list_option(
    "--context",
    "-c",
    default="2048",
    help="Cached tokens at decode (each step reads them and appends one).",
)
@options.dtype_options(
    "Weights, activations and KV cache, unless set apart below.",
    "Every weight, experts included (int8/int4 = W8A16/W4A16 with group scales) [default: as a config.json's "
    "quantization_config stores them, else --dtype].",
    act=True,
)
@options.tp_option("Tensor-parallel degree (results per GPU).")
@click.option(
    "--attention",
    type=click.Choice(["flash", "materialized"]),
    default="flash",
    show_default=True,
    help="flash keeps scores in SRAM; materialized writes them to HBM.",
)
@click.option("--no-causal", is_flag=True, help="Count the full score rectangle (kernels that mask after computing).")
@options.tokens_option(
    "--cached-prefix",
    low=0,
    default=0,
    show_default=False,
    help="Prompt tokens already in the KV cache (prefix caching).",
)
@click.option(
    "--quant-group",
    type=click.IntRange(1, MAX_TOKENS),
    help="Group size of weight-only quantisation scales [default: the checkpoint's, else 128].",
)
@options.memory_utilization_option
@click.option(
    "--calibrated",
    type=click.Choice(["cpu", "cuda"]),
    is_flag=False,
    flag_value="cpu",
    default=None,
    help="Use this device's measured roofs and the efficiency a `rooftop profile` on it fitted "
    "(alone: the CPU, 1 thread; `--calibrated cuda`: the GPU).",
)
@technique_options
@click.option(
    "--output-tokens",
    type=click.IntRange(min=1),
    default=256,
    show_default=True,
    help="Output tokens per request (disaggregation pools, what-if).",
)
@options.slo_options(
    "TTFT objective for goodput (what-if), e.g. '500ms'.",
    "TPOT objective for goodput and decode pools, e.g. '50ms'.",
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
    expert_dtype: str | None,
    kv_dtype: str | None,
    act_dtype: str | None,
    compute_dtype: str | None,
    tp: int,
    attention: str,
    no_causal: bool,
    cached_prefix: int,
    quant_group: int | None,
    peak_tflops: str | None,
    bandwidth: str | None,
    catalog: str | None,
    memory_utilization: float,
    calibrated: str | None,
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
      rooftop analyze                                # the teaching default
      rooftop analyze -m llama-2-70b --dtype fp16 --phase decode -b 1
      rooftop analyze -m llama-3.1-70b -H h100-sxm --tp 4 --phase decode \\
          -b 1,16,128 -c 8192
      rooftop analyze -m ./my-model/config.json --weight-dtype int4 --phase decode
      # a quantized checkpoint, weights as stored (gpt-oss: MXFP4 experts):
      rooftop analyze -m ./gpt-oss-120b/config.json --phase decode -b 1,64
      rooftop analyze -m deepseek-v3 -H h200-sxm --weight-dtype fp8 --tp 8 \\
          --json > run.json
      # after `rooftop profile` (CPU), or a profile on a GPU (--calibrated cuda):
      rooftop analyze -m llama-cpu-small --dtype fp32 --phase decode -b 1,32 \\
          --calibrated
      rooftop analyze -m llama-3.2-1b --dtype bf16 --phase decode -b 1,16 \\
          --calibrated cuda
      rooftop analyze -m llama-3.1-8b -H h100-sxm --phase decode -b 1 --what-if
      rooftop analyze --phase decode -b 1 --spec-k 4 --spec-alpha 0.8 \\
          --drafter head
      rooftop analyze --phase decode -b 64 -p 8192 --chunk 2048
      rooftop analyze -m deepseek-v3 -H h200-sxm --weight-dtype fp8 \\
          --phase decode -b 32 --ep 8
      rooftop analyze -m llama-3.1-70b --tp 4 --phase decode -b 64 --rate 20 \\
          --slo-tpot 50ms
    """
    spec = resolve_model(model)
    roofs = options.catalog_roofs(hardware, catalog, peak_tflops, bandwidth)
    base = Workload(
        **options.workload_dtypes(
            dtype,
            weight_dtype,
            kv_dtype,
            act_dtype,
            compute_dtype,
            expert_dtype=expert_dtype,
            quant_group=quant_group,
            stored=spec.stored,
        ),
        tp=tp,
        attention=attention,
        causal=not no_causal,
        cached_prefix=cached_prefix,
        prompt=max(prompt),
    )
    workloads = _workloads(phase, batch, prompt, context, base)
    techniques = build(flags, SLO(slo_ttft, slo_tpot), output_tokens, memory_utilization)
    _analyze(spec, roofs, workloads, techniques, memory_utilization, calibrated, as_json, output)


def _analyze(
    spec: ModelSpec,
    roofs: Roofs,
    workloads: list[Workload],
    techniques: Techniques,
    memory_utilization: float,
    calibrated: str | None,
    as_json: bool,
    output: str | None,
) -> None:
    """The techniques and what-if asked for, against the baseline; else the plain (or --calibrated) run."""
    if not techniques.asked:
        emit(_run(spec, roofs, workloads, memory_utilization, calibrated), as_json, output)
        return
    if calibrated:
        raise WorkloadError("--calibrated takes no technique or --what-if flags (see `rooftop profile --what-if`)")
    from rooftop.api.techniques import analyze_techniques
    from rooftop.report.whatif import render_analysis

    emit(analyze_techniques(spec, roofs, workloads, techniques), as_json, output, render=render_analysis)


def _workloads(phase: str, batch: list[int], prompt: list[int], context: list[int], base: Workload) -> list[Workload]:
    """both: one prompt's prefill at batch 1, then decode at each batch; else the phase's grid."""
    if phase == "both":
        workloads = workloads_for([Phase.PREFILL], [1], prompt, context, base)
        return workloads + workloads_for([Phase.DECODE], batch, prompt, context, base)
    return workloads_for([Phase(phase)], batch, prompt, context, base)


def _run(
    spec: ModelSpec, roofs: Roofs, workloads: list[Workload], memory_utilization: float, calibrated: str | None
) -> Run:
    """The analytic run, or (--calibrated DEVICE) its operators timed by that device's cached calibration."""
    if not calibrated:
        return run_analysis(spec, roofs, workloads, memory_utilization)
    from rooftop.api.calibrated import analyze_calibrated

    with hint(f"run `rooftop profile --device {calibrated}`"):
        return analyze_calibrated(spec, workloads, calibrated, 1, memory_utilization)
