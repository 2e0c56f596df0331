"""Flags shared by `analyze` and `sweep`: serving techniques and the what-if."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from rooftop.analytic.speculative import DRAFTERS, Drafter
from rooftop.api.techniques import Techniques
from rooftop.api.whatif import Options
from rooftop.core.slo import SLO
from rooftop.models.presets import resolve_model

F = TypeVar("F", bound=Callable[..., Any])

OPTIONS = (
    click.option(
        "--what-if",
        "what_if",
        is_flag=True,
        help="Re-evaluate with each applicable remedy applied; rank them by predicted gain.",
    ),
    click.option(
        "--batch-factor",
        type=click.IntRange(min=2),
        default=8,
        show_default=True,
        help="What-if: batch × this (capped at the batch that fits).",
    ),
    click.option("--spec-k", type=click.IntRange(min=1), help="Speculative decoding: draft tokens per verify step."),
    click.option(
        "--spec-alpha",
        type=click.FloatRange(0.0, 1.0),
        default=0.7,
        show_default=True,
        help="Speculative decoding: per-token acceptance rate α.",
    ),
    click.option(
        "--drafter",
        default="ngram",
        show_default=True,
        help="Draft source: ngram (free), head (EAGLE/MTP: one target layer) or a model preset/config.",
    ),
    click.option(
        "--chunk",
        type=click.IntRange(min=2),
        help="Chunked prefill: token budget per step (vLLM's max_num_batched_tokens).",
    ),
    click.option(
        "--ep", type=click.IntRange(min=1), help="Expert-parallel ranks (MoE models; attention data-parallel)."
    ),
    click.option(
        "--ep-link",
        type=click.Choice(["intra", "inter"]),
        default="intra",
        show_default=True,
        help="All-to-all link: NVLink (intra) or the per-GPU NIC (inter).",
    ),
    click.option(
        "--a2a",
        type=click.Choice(["deepep", "bf16"]),
        default="deepep",
        show_default=True,
        help="All-to-all dtypes: deepep = FP8 dispatch (+ scales), BF16 combine.",
    ),
    click.option(
        "--ep-imbalance",
        type=click.FloatRange(min=1.0),
        default=1.0,
        show_default=True,
        help="Busiest EP rank's load / the mean (1 = balanced).",
    ),
    click.option(
        "--pp", type=click.IntRange(min=1), help="Pipeline stages (micro-batches = stages when they divide the batch)."
    ),
    click.option(
        "--rate",
        type=click.FloatRange(min=0.0, min_open=True),
        help="Disaggregation: requests/s to size prefill and decode pools for.",
    ),
    click.option(
        "--kv-link",
        type=click.Choice(["intra", "inter"]),
        default="inter",
        show_default=True,
        help="Disaggregation: the link the KV cache crosses.",
    ),
)

NAMES = (
    "what_if",
    "batch_factor",
    "spec_k",
    "spec_alpha",
    "drafter",
    "chunk",
    "ep",
    "ep_link",
    "a2a",
    "ep_imbalance",
    "pp",
    "rate",
    "kv_link",
)


def technique_options(fn: F) -> F:
    """Add the technique and what-if flags to a command."""
    for option in reversed(OPTIONS):
        fn = option(fn)
    return fn


def pop_techniques(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Remove the technique flags from a command's keyword arguments and return them."""
    return {name: kwargs.pop(name) for name in NAMES}


def drafter_of(text: str) -> Drafter:
    """'ngram' / 'head' / a model preset or config path."""
    if text in DRAFTERS and text != "model":
        return Drafter(text)
    return Drafter("model", resolve_model(text))


def build(flags: dict[str, Any], slo: SLO, output_tokens: int = 256, memory_utilization: float = 0.9) -> Techniques:
    """Techniques and what-if options from the flags."""
    opts = Options(
        batch_factor=flags["batch_factor"],
        spec_k=flags["spec_k"] or 4,
        spec_alpha=flags["spec_alpha"],
        drafter=drafter_of(flags["drafter"]),
        chunk_tokens=flags["chunk"] or 2048,
        output_tokens=output_tokens,
        ep=flags["ep"] or 8,
        ep_link=flags["ep_link"],
        a2a=flags["a2a"],
        ep_imbalance=flags["ep_imbalance"],
        pp=flags["pp"] or 2,
        kv_link=flags["kv_link"],
        slo=slo,
        memory_utilization=memory_utilization,
        ep_in_baseline=(flags["ep"] or 1) > 1,
    )
    return Techniques(
        opts,
        speculative=flags["spec_k"] is not None,
        chunk=flags["chunk"] is not None,
        ep=(flags["ep"] or 1) > 1,
        pp=(flags["pp"] or 1) > 1,
        disaggregate=flags["rate"] is not None,
        rate_per_s=flags["rate"],
        what_if=flags["what_if"],
    )
