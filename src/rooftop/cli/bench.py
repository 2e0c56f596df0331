"""`rooftop bench`: open-loop load against an OpenAI-compatible server, with the engine's view beside it."""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

import click

from rooftop.cli.params import OutputFile
from rooftop.core.atomic import write_atomic
from rooftop.errors import ReportError, WorkloadError


def _rates(rate: str, rates: str | None) -> list[float]:
    text = rates or rate
    try:
        values = [float(x) for x in str(text).split(",") if x.strip()]
    except ValueError:
        raise WorkloadError(f"--rate(s) {text!r}: expected numbers (req/s) or 'inf'") from None
    if not values or any(not v > 0 for v in values):
        raise WorkloadError(f"--rate(s) {text!r}: rates must be > 0")
    return values


def _slo(ttft: str | None, tpot: str | None, e2e: str | None) -> Any:
    from rooftop.serving.loadgen.summary import Slo
    from rooftop.units import parse_seconds

    return Slo(*(parse_seconds(x) if x else None for x in (ttft, tpot, e2e)))


@click.command()
@click.argument("url")
@click.option("--model", "-m", help="Model preset or config.json for live MFU/MBU (rooftop's analytic model).")
@click.option("--served-model", help="Model name sent in requests (default: the first of GET /v1/models).")
@click.option("--hardware", "-H", default="h100-sxm", show_default=True, help="Catalog device for the roofs.")
@click.option("--dtype", default="bf16", show_default=True, help="Dtype the engine runs (for MFU/MBU).")
@click.option("--tp", type=click.IntRange(min=1), default=1, show_default=True, help="Tensor-parallel degree.")
@click.option("--peak-tflops", help="Override the compute roof.")
@click.option("--bandwidth", help="Override the memory roof.")
@click.option("--rate", default="1", show_default=True, help="Offered load, requests/s ('inf' = all at once).")
@click.option("--rates", help="Comma list of rates for a curve, e.g. 1,2,4,8 (finds the knee and best goodput).")
@click.option(
    "--burstiness",
    type=float,
    default=1.0,
    show_default=True,
    help="Gamma shape: 1 = Poisson, <1 burstier, large = nearly constant.",
)
@click.option(
    "--arrival", type=click.Choice(["poisson", "gamma", "constant"]), help="Default: gamma when --burstiness ≠ 1."
)
@click.option(
    "--trace", type=click.Path(exists=True, dir_okay=False), help="Send times from a file (one timestamp per line)."
)
@click.option(
    "--requests", "n_requests", type=click.IntRange(min=1), default=100, show_default=True, help="Requests per rate."
)
@click.option("--prompt-len", default="512", show_default=True, help="N, MEAN:STDDEV or LOW-HIGH prompt tokens.")
@click.option("--output-len", default="128", show_default=True, help="N, MEAN:STDDEV or LOW-HIGH output tokens.")
@click.option("--dataset", type=click.Path(exists=True, dir_okay=False), help='JSONL of {"prompt"} or {"messages"}.')
@click.option("--chat", is_flag=True, help="Use /v1/chat/completions instead of /v1/completions.")
@click.option("--no-ignore-eos", is_flag=True, help="Let the model stop early (default asks for exactly --output-len).")
@click.option("--slo-ttft", help="TTFT objective, e.g. 500ms.")
@click.option("--slo-tpot", help="TPOT objective, e.g. 50ms.")
@click.option("--slo-e2e", help="End-to-end objective, e.g. 10s.")
@click.option(
    "--timeout", type=float, default=300.0, show_default=True, help="Per-request timeout (s); counted as failed."
)
@click.option("--max-concurrency", type=click.IntRange(min=1), help="Cap in-flight requests (closes the loop).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--no-scrape", is_flag=True, help="Do not read the engine's /metrics before and after.")
@click.option("--csv", "csv_path", type=OutputFile(), help="Per-request records as CSV.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary JSON.")
@click.option("--output", "-o", type=OutputFile(), help="Write the rooftop.run/1 artifact.")
def bench(
    url: str,
    model: str | None,
    served_model: str | None,
    hardware: str,
    dtype: str,
    tp: int,
    peak_tflops: str | None,
    bandwidth: str | None,
    rate: str,
    rates: str | None,
    burstiness: float,
    arrival: str | None,
    trace: str | None,
    n_requests: int,
    prompt_len: str,
    output_len: str,
    dataset: str | None,
    chat: bool,
    no_ignore_eos: bool,
    slo_ttft: str | None,
    slo_tpot: str | None,
    slo_e2e: str | None,
    timeout: float,
    max_concurrency: int | None,
    seed: int,
    no_scrape: bool,
    csv_path: str | None,
    as_json: bool,
    output: str | None,
) -> None:
    """Load a serving engine open-loop and report TTFT, TPOT, ITL, E2E, throughput and goodput.

    URL is the server's base, e.g. http://127.0.0.1:8000. Requests leave on schedule whether or not
    earlier ones finished (open loop). The engine's /metrics is read before and after, so the
    report shows its own latency histograms and live MFU/MBU beside the client's numbers.

    \b
    Examples:
      rooftop bench http://127.0.0.1:8000 --model llama-3.1-8b --hardware h100-sxm \\
            --rate 4 --burstiness 1 --requests 500 --prompt-len 1024:256 --output-len 256 \\
            --slo-ttft 500ms --slo-tpot 50ms
      rooftop bench http://127.0.0.1:8000 --rates 1,2,4,8 --requests 200 --json > curve.json
      rooftop bench http://127.0.0.1:8000 --chat --dataset prompts.jsonl --rate 2 --csv requests.csv
    """
    from rooftop.api.serve import bench_one, live_model, live_run, served_model_name
    from rooftop.serving.loadgen import arrivals as arr
    from rooftop.serving.loadgen import prompts
    from rooftop.serving.loadgen.runner import Target
    from rooftop.serving.loadgen.sweep import analyse

    live = live_model(model, hardware, dtype, tp, peak_tflops, bandwidth)
    slo = _slo(slo_ttft, slo_tpot, slo_e2e)
    target = Target(
        url.removesuffix("/metrics"),
        served_model or served_model_name(url.removesuffix("/metrics")),
        chat=chat,
        ignore_eos=not no_ignore_eos,
    )
    out_lengths = prompts.parse_lengths(output_len, "output-len")
    if dataset:
        reqs = prompts.dataset(dataset, n_requests, out_lengths, chat, seed)
    else:
        reqs = prompts.synthetic(n_requests, prompts.parse_lengths(prompt_len, "prompt-len"), out_lengths, chat, seed)
    levels = [math.nan] if trace else _rates(rate, rates)
    kind = arrival or ("poisson" if burstiness == 1.0 else "gamma")

    def schedule(level: float) -> Any:
        if trace:
            return arr.from_trace(trace)[:n_requests]
        return arr.arrivals(n_requests, level, kind, burstiness, seed)

    def one(level: float, offsets: Any, progress: Any) -> Any:
        return bench_one(
            target, reqs[: len(offsets)], offsets, slo, live, timeout, max_concurrency, progress, not no_scrape
        )

    runs, results, records = _run_levels(levels, schedule, one, {"burstiness": burstiness, "arrival": kind})
    if csv_path:
        _write_csv(csv_path, records)
    if output:
        from rooftop.core import artifact

        run = live_run("bench", results, live, {"target": target.url})
        write_atomic(output, artifact.dumps(run), ReportError)
        click.echo(f"wrote {output}", err=True)
    doc: dict[str, Any] = (
        runs[0] if len(runs) == 1 else {"runs": runs, "sweep": analyse([(s["rate"], s) for s in runs])}
    )
    click.echo(json.dumps(_strict(doc), indent=1, allow_nan=False) if as_json else _human(runs, doc))


def _run_levels(
    levels: list[float],
    schedule: Any,
    one: Any,
    labels: dict[str, Any],
) -> tuple[list[dict[str, Any]], list[Any], list[tuple[float, Any]]]:
    """Run one open-loop level after another (with progress): summaries, results and per-request records."""
    runs: list[dict[str, Any]] = []
    results: list[Any] = []
    records: list[tuple[float, Any]] = []
    for level in levels:
        offsets = schedule(level)
        summary, result, recs = _with_progress(lambda cb, lv=level, o=offsets: one(lv, o, cb), len(offsets), level)
        runs.append({"rate": None if math.isnan(level) else level, **labels, **summary})
        results.append(result)
        records.extend((level, r) for r in recs)
    return runs, results, records


def _strict(obj: Any) -> Any:
    """Strict JSON values: rate inf → "inf", NaN → null (json.dumps would write Infinity/NaN, which jq rejects)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _strict(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_strict(v) for v in obj]
    return obj


def _with_progress(fn: Any, total: int, level: float) -> Any:
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(f"rate {level:g} req/s" if not math.isnan(level) else "trace", total=total)
        return fn(lambda _rec: progress.advance(task))


def _write_csv(path: str, records: list[tuple[float, Any]]) -> None:
    fh = io.StringIO(newline="")
    writer = None
    for level, rec in records:
        row = {"rate": level, **rec.to_dict()}
        if writer is None:
            writer = csv.DictWriter(fh, fieldnames=list(row))
            writer.writeheader()
        writer.writerow(row)
    write_atomic(path, fh.getvalue(), ReportError)


def _ms(q: dict[str, Any], key: str) -> str:
    v = q.get(key)
    return "—" if v is None else f"{v * 1e3:,.1f}"


def _human(runs: list[dict[str, Any]], doc: dict[str, Any]) -> str:
    lines = ["rate req/s  done/failed  TTFT p50/p99 ms  TPOT p50/p99 ms  ITL p50 ms  out tok/s  goodput req/s"]
    for s in runs:
        lines.append(
            f"{s['rate'] if s['rate'] is not None else 'trace':>10}  {s['completed']:>5}/{s['failed']:<5}  "
            f"{_ms(s['ttft_s'], 'p50'):>7}/{_ms(s['ttft_s'], 'p99'):<7}  "
            f"{_ms(s['tpot_s'], 'p50'):>7}/{_ms(s['tpot_s'], 'p99'):<7}"
            f"  {_ms(s['itl_s'], 'p50'):>9}  {s['output_tokens_per_s']:>9.1f}  {s['goodput_rps']:>13.2f}"
        )
        eng = s.get("engine") or {}
        if eng.get("mfu"):
            lines.append(
                f"{'':>10}  engine view: MFU {eng['mfu'].get('total') or 0:.2%}, MBU {eng['mbu'].get('total') or 0:.2%}"
            )
        if eng.get("error"):
            lines.append(f"{'':>10}  engine telemetry: {eng['error']}")
    if "sweep" in doc:
        sw = doc["sweep"]
        best = f"{sw['best_goodput_rps']:.2f} req/s at {sw['best_goodput_rate']} req/s"
        lines.append(f"knee at {sw['knee_rate']} req/s; best goodput {best}")
    return "\n".join(lines)
