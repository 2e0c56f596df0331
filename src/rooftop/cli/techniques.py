"""Flags shared by `analyze` and `sweep`: serving techniques and the what-if."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from rooftop.analytic.speculative import DRAFTERS, Drafter
from rooftop.api.techniques import Techniques
from rooftop.api.whatif import Options
from rooftop.cli.options import stack
from rooftop.core.slo import SLO
from rooftop.models.presets import resolve_model

F = TypeVar("F", bound=Callable[..., Any])

# (flag, type, default, help) of each technique flag; a default is shown in --help.
_FLAGS: tuple[tuple[str, click.ParamType[Any] | None, object, str], ...] = (
    ("--batch-factor", click.IntRange(min=2), 8, "What-if: batch × this (capped at the batch that fits)."),
    ("--spec-k", click.IntRange(min=1), None, "Speculative decoding: draft tokens per verify step."),
    ("--spec-alpha", click.FloatRange(0.0, 1.0), 0.7, "Speculative decoding: per-token acceptance rate α."),
    (
        "--drafter",
        None,
        "ngram",
        "Draft source: ngram (free), head (EAGLE/MTP: one target layer) or a model preset/config.",
    ),
    ("--chunk", click.IntRange(min=2), None, "Chunked prefill: token budget per step (vLLM's max_num_batched_tokens)."),
    ("--ep", click.IntRange(min=1), None, "Expert-parallel ranks (MoE models; attention data-parallel)."),
    (
        "--ep-link",
        click.Choice(["intra", "inter"]),
        "intra",
        "All-to-all link: NVLink (intra) or the per-GPU NIC (inter).",
    ),
    (
        "--a2a",
        click.Choice(["deepep", "bf16"]),
        "deepep",
        "All-to-all dtypes: deepep = FP8 dispatch (+ scales), BF16 combine.",
    ),
    ("--ep-imbalance", click.FloatRange(min=1.0), 1.0, "Busiest EP rank's load / the mean (1 = balanced)."),
    ("--pp", click.IntRange(min=1), None, "Pipeline stages (micro-batches = stages when they divide the batch)."),
    (
        "--rate",
        click.FloatRange(min=0.0, min_open=True),
        None,
        "Disaggregation: requests/s to size prefill and decode pools for.",
    ),
    ("--kv-link", click.Choice(["intra", "inter"]), "inter", "Disaggregation: the link the KV cache crosses."),
)

WHAT_IF = click.option(
    "--what-if",
    "what_if",
    is_flag=True,
    help="Re-evaluate with each applicable remedy applied; rank them by predicted gain.",
)

# The keyword argument each flag arrives as ('--spec-k' -> 'spec_k').
NAMES = ("what_if", *(flag.removeprefix("--").replace("-", "_") for flag, *_ in _FLAGS))


def _option(flag: str, kind: click.ParamType[Any] | None, default: object, help: str) -> Callable[[F], F]:
    return click.option(flag, type=kind, default=default, show_default=default is not None, help=help)


def technique_options(fn: F) -> F:
    """Add the what-if and technique flags to a command."""
    return stack(WHAT_IF, *(_option(*row) for row in _FLAGS))(fn)


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
