"""The notebook facade: the CLI's commands as Python calls that take names or objects.

    import rooftop
    run = rooftop.analyze("llama-3.1-8b", "h100-sxm", phase="decode", batch=[1, 64])
    run.to_dataframe()            # one row per operator and workload (pandas, the `notebook` extra)
    run                           # in Jupyter: the totals and per-operator tables

``model`` is a preset name (any case), a Hugging Face repo id of a preset, a local config.json
path, or a :class:`~rooftop.models.spec.ModelSpec`; ``device`` is a catalog name or a
:class:`~rooftop.core.roofs.Roofs`. Lists and single values are both accepted for shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rooftop.analytic.memory import DEFAULT_MEMORY_UTILIZATION
from rooftop.api.analysis import device_roofs, model_spec
from rooftop.core.artifact import Run
from rooftop.core.points import Phase
from rooftop.core.roofs import Roofs
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError
from rooftop.models.quantization import StoredWeights, weight_dtypes
from rooftop.models.spec import ModelSpec

Ints = int | Sequence[int]


def _ints(value: Ints, name: str) -> list[int]:
    values = [value] if isinstance(value, int) else list(value)
    if not values or not all(isinstance(v, int) for v in values):
        raise WorkloadError(f"{name} must be an int or a list of ints, not {value!r}")
    return values


def _base(dtype: str, stored: StoredWeights | None, **fields: Any) -> Workload:
    """A Workload whose dtypes default to ``dtype``, its weights to the checkpoint's; other fields as given."""
    given = {k: v for k, v in fields.items() if v is not None}
    for key in ("act_dtype", "kv_dtype"):
        given.setdefault(key, dtype)
    weights = weight_dtypes(
        dtype, given.get("weight_dtype"), given.get("expert_dtype"), given.get("quant_group_size"), stored
    )
    given["weight_dtype"], given["expert_dtype"], given["quant_group_size"] = weights
    return Workload(**given)


def analyze(
    model: str | Path | ModelSpec = "llama-3.1-8b",
    device: str | Roofs = "h100-sxm",
    *,
    phase: str = "both",
    batch: Ints = (1, 64),
    prompt: Ints = 2048,
    context: Ints = 2048,
    dtype: str = "bf16",
    memory_utilization: float = DEFAULT_MEMORY_UTILIZATION,
    **workload: Any,
) -> Run:
    """The analytic roofline, as `rooftop analyze`: ``phase`` is prefill, decode or both.

    ``both`` is one request's prefill (batch 1, each prompt) then decode at each batch and context.
    Other keyword arguments are Workload fields: weight_dtype, kv_dtype, act_dtype, compute_dtype,
    tp, attention ('flash' or 'materialized'), causal, cached_prefix, quant_group_size, expert_dtype
    (weights not given are taken as the checkpoint's quantization_config stores them, else ``dtype``).
    """
    from rooftop.api.analysis import analyze as run_analysis
    from rooftop.api.analysis import workloads_for

    if phase not in ("prefill", "decode", "both"):
        raise WorkloadError(f"phase must be prefill, decode or both, not {phase!r}")
    batches, prompts, contexts = _ints(batch, "batch"), _ints(prompt, "prompt"), _ints(context, "context")
    spec = model_spec(model)
    base = _base(dtype, spec.stored, prompt=max(prompts), **workload)
    if phase == "both":
        workloads = workloads_for([Phase.PREFILL], [1], prompts, contexts, base)
        workloads += workloads_for([Phase.DECODE], batches, prompts, contexts, base)
    else:
        workloads = workloads_for([Phase(phase)], batches, prompts, contexts, base)
    return run_analysis(spec, device_roofs(device), workloads, memory_utilization)


def sweep(
    model: str | Path | ModelSpec = "llama-3.1-8b",
    device: str | Roofs = "h100-sxm",
    *,
    batch: Ints = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512),
    context: Ints | None = None,
    prompt: int = 2048,
    output_tokens: int = 256,
    slo_ttft_s: float | None = None,
    slo_tpot_s: float | None = None,
    dtype: str = "bf16",
    memory_utilization: float = DEFAULT_MEMORY_UTILIZATION,
    **workload: Any,
) -> Run:
    """A batch × context capacity sweep with SLOs, as `rooftop sweep` (SLOs in seconds)."""
    from rooftop.api.sweep import Cohort
    from rooftop.api.sweep import sweep as run_sweep
    from rooftop.core.slo import SLO

    contexts = None if context is None else _ints(context, "context")
    spec = model_spec(model)
    return run_sweep(
        spec,
        device_roofs(device),
        _base(dtype, spec.stored, **workload),
        _ints(batch, "batch"),
        contexts,
        [Cohort(prompt, output_tokens)],
        SLO(ttft_s=slo_ttft_s, tpot_s=slo_tpot_s),
        memory_utilization,
    )


def profile(model: str = "llama-cpu-small", device: str = "cpu", **request: Any) -> Run:
    """Measure a real forward pass with torch (the `measure` extra), as `rooftop profile`.

    Keyword arguments are ProfileRequest fields: dtype, batch, prompt, context, decode_steps,
    threads, trace_path, weights, calibrate.
    """
    from rooftop.api.profile import ProfileRequest
    from rooftop.api.profile import profile as run_profile

    if "trace_path" in request:
        request["trace_path"] = Path(request["trace_path"])
    return run_profile(ProfileRequest(model=model, device=device, **request))


def import_path(path: str | Path, device: str | Roofs | None = None) -> Run:
    """A Kineto trace, Nsight Compute CSV, nsys kernel summary (or a folder of them), as `rooftop import`."""
    from rooftop.api.ingest import import_path as run_import

    return run_import(path, None if device is None else device_roofs(device))
