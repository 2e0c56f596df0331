"""Text for the technique sections (speculative, chunked, EP, PP, disaggregation) and the what-if ranking."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from rooftop.core.artifact import Result, Run
from rooftop.report.tables import render_run, result_title, tokens_text
from rooftop.units import seconds, si

RANK_LABELS = {
    "tokens_per_s_per_gpu": "tokens/s per GPU",
    "ttft_s": "TTFT",
    "goodput_tokens_per_s_per_gpu": "goodput per GPU under the SLOs",
}
TECHNIQUES = ("speculative", "chunked", "expert_parallel", "pipeline", "disaggregation")


def what_if_table(section: dict[str, Any]) -> Table:
    """The baseline, then each remedy's predicted figures, ranked by gain."""
    metric = RANK_LABELS.get(section["rank_metric"], section["rank_metric"])
    table = Table(title=f"what-if, ranked by {metric}", title_justify="left", box=None, header_style="bold")
    for name, justify in (("#", "right"), ("remedy", "left"), ("TTFT", "right"), ("TPOT", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for name in ("tok/s/GPU", "max ITL", "gain"):
        table.add_column(name, justify="right")
    b = section["baseline"]
    table.add_row(
        "",
        "baseline",
        seconds(b["ttft_s"]),
        seconds(b["tpot_s"]),
        tokens_text(b["tokens_per_s_per_gpu"]),
        seconds(b["max_itl_s"]),
        "",
    )
    for r in section["remedies"]:
        p = r["predicted"]
        gain = r["gain"]
        shown = "∞" if gain == float("inf") else f"{gain:+.0%}"
        table.add_row(
            str(r["rank"]),
            escape(r["name"] + ("" if p["fits"][1] else " (no fit)")),
            seconds(p["ttft_s"][1]),
            seconds(p["tpot_s"][1]),
            tokens_text(p["tokens_per_s_per_gpu"][1]),
            seconds(p["max_itl_s"][1]),
            shown,
        )
    return table


def _speculative(s: dict[str, Any]) -> str:
    crossing = s["ridge_new_tokens"]
    cross = f"k + 1 ≈ {crossing:,.0f}" if crossing != float("inf") else "never"
    return (
        f"speculative: k={s['k']} α={s['alpha']:g} drafter {s['drafter']}: E = {s['expected_tokens']:.3g} tokens"
        f" per verify; verify {seconds(s['verify_s'])} + {s['k']} × draft {seconds(s['draft_step_s'])}"
        f" → TPOT {seconds(s['tpot_s'])} (plain {seconds(s['plain_step_s'])}, ×{s['speedup']:.2f});"
        f" verify GEMMs reach the ridge at {cross} tokens per sequence"
    )


def ridge_table(rows: list[dict[str, Any]]) -> Table:
    """The verify step as k + 1 grows (1, 2, 4, 8, 16): time, GEMM and step intensity, bound."""
    table = Table(title="verify step as k + 1 grows", title_justify="left", box=None, header_style="bold")
    for name in ("k + 1", "verify", "GEMM FLOP/B", "step FLOP/B"):
        table.add_column(name, justify="right")
    table.add_column("bound")
    for r in rows:
        if r["new_tokens"] in (1, 2, 4, 8, 16, 32):
            table.add_row(
                str(r["new_tokens"]),
                seconds(r["verify_s"]),
                f"{r['gemm_intensity']:.3g}",
                f"{r['step_intensity']:.3g}",
                str(r["bound"]),
            )
    return table


def _chunked(s: dict[str, Any]) -> str:
    return (
        f"chunked prefill: budget {s['budget_tokens']} = {s['decode_batch']} decodes + chunk {s['chunk_tokens']};"
        f" {s['chunks']} chunks, TTFT {seconds(s['ttft_s'])} (unchunked {seconds(s['unchunked_ttft_s'])});"
        f" running decodes see TPOT {seconds(s['tpot_during_s'])} while it is chunked, longest gap"
        f" {seconds(s['max_itl_s'])} (unchunked {seconds(s['unchunked_itl_s'])})"
    )


def _ep(s: dict[str, Any]) -> str:
    a = s["arithmetic"]
    return (
        f"expert parallel: ep {s['ep']} over {s['link']} ({s['preset']}), per token per MoE layer:"
        f" dispatch {a['dispatch']} = {s['dispatch_bytes']:,.0f} B, combine {a['combine']} ="
        f" {s['combine_bytes']:,.0f} B; remote {a['remote_share']}: {s['dispatch_remote_bytes']:,.0f} B +"
        f" {s['combine_remote_bytes']:,.0f} B; all-to-alls {seconds(s['all_to_all_s'])} per step over"
        f" {s['moe_layers']} MoE layers; weights {si(s['weights_bytes_per_gpu'], 'B')} per GPU"
    )


def _pipeline(s: dict[str, Any]) -> str:
    stages = ", ".join(seconds(x) for x in s["stage_s"])
    return (
        f"pipeline: {s['stages']} stages ({'/'.join(str(n) for n in s['layers_per_stage'])} layers),"
        f" {s['microbatches']} micro-batches; stage times {stages}; p2p {si(s['p2p_bytes'], 'B')}"
        f" ({seconds(s['p2p_s'])}) per boundary; bubble {s['bubble']:.0%}; step {seconds(s['step_s'])},"
        f" {tokens_text(s['tokens_per_s'])} tokens/s"
    )


def _disaggregation(s: dict[str, Any]) -> str:
    return (
        f"disaggregated: {s['rate_per_s']:g} req/s → {s['prefill_gpus']} prefill GPUs : {s['decode_gpus']}"
        f" decode GPUs (decode batch {s['decode_batch']}, TPOT {seconds(s['tpot_s'])}); KV"
        f" {si(s['kv_transfer_bytes'], 'B')} per request over {s['link']} in {seconds(s['kv_transfer_s'])};"
        f" TTFT {seconds(s['ttft_s'])}"
    )


RENDERERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "speculative": _speculative,
    "chunked": _chunked,
    "expert_parallel": _ep,
    "pipeline": _pipeline,
    "disaggregation": _disaggregation,
}


def render_result_extras(result: Result, console: Console) -> None:
    """The technique sections and the what-if table of one result (nothing when it has none)."""
    keys = [k for k in TECHNIQUES if k in result.extra]
    if not keys and "what_if" not in result.extra:
        return
    console.print()
    console.print(Text(result_title(result), style="bold"))
    for key in keys:
        console.print(Text(RENDERERS[key](result.extra[key])))
        if key == "speculative":
            console.print(ridge_table(result.extra[key]["ridge_table"]))
    if "what_if" in result.extra:
        console.print(what_if_table(result.extra["what_if"]))


def render_analysis(run: Run, console: Console) -> None:
    """The usual tables, then each result's technique sections and what-if."""
    render_run(run, console)
    for result in run.results:
        render_result_extras(result, console)


def measured_table(rows: list[dict[str, Any]]) -> Table:
    """Predicted against measured speed-up of each remedy run on this machine."""
    table = Table(title="what-if here: predicted vs measured", title_justify="left", box=None, header_style="bold")
    for name, justify in (("remedy", "left"), ("metric", "left"), ("predicted", "right"), ("measured", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("error", justify="right")
    for r in rows:
        table.add_row(
            escape(r["remedy"]),
            r["metric"],
            f"×{r['predicted_speedup']:.2f}",
            f"×{r['measured_speedup']:.2f}",
            Text(f"{r['error']:+.0%}", style="green" if r["within_tolerance"] else "yellow"),
        )
    return table


def with_measured(render: Callable[[Run, Console], None]) -> Callable[[Run, Console], None]:
    """``render``, then the measured what-if table of each result that has one."""

    def both(run: Run, console: Console) -> None:
        render(run, console)
        for result in run.results:
            if "what_if_measured" in result.extra:
                console.print()
                console.print(measured_table(result.extra["what_if_measured"]))

    return both
