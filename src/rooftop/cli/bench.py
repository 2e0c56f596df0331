"""`rooftop bench`: open-loop load against an OpenAI-compatible server, with the engine's view beside it."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from rooftop.cli.params import OutputFile
from rooftop.core.atomic import write_atomic
from rooftop.core.jsonenc import dumps
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
    from rooftop.core.slo import SLO
    from rooftop.units import parse_seconds

    return SLO(*(parse_seconds(x) if x else None for x in (ttft, tpot, e2e)))


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
@click.option("--model-label", help="Triton: the model whose request counters count (default: the ensemble).")
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
    model_label: str | None,
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
    from rooftop.api import bench as api
    from rooftop.api.live_model import live_model

    live = live_model(model, hardware, dtype, tp, peak_tflops, bandwidth)
    target = _target(url, served_model, chat, not no_ignore_eos)
    reqs = _requests(dataset, n_requests, prompt_len, output_len, chat, seed)
    kind = arrival or ("poisson" if burstiness == 1.0 else "gamma")
    schedule = _schedule(trace, n_requests, kind, burstiness, seed)
    levels = [math.nan] if trace else _rates(rate, rates)
    options = api.LoadOptions(timeout, max_concurrency, not no_scrape, model_label)
    slo, labels = _slo(slo_ttft, slo_tpot, slo_e2e), {"burstiness": burstiness, "arrival": kind}
    run = api.run_levels(target, reqs, schedule, levels, slo, live, options, labels, _progress)
    _write(run, live, target, csv_path, output)
    click.echo(dumps(run.document(), indent=1) if as_json else _human(run.runs(), run.document()))


def _write(run: Any, live: Any, target: Any, csv_path: str | None, output: str | None) -> None:
    if csv_path:
        _write_csv(csv_path, run.records())
    if output:
        from rooftop.core import artifact

        write_atomic(output, artifact.dumps(run.artifact(live, target)), ReportError)
        click.echo(f"wrote {output}", err=True)


def _target(url: str, served_model: str | None, chat: bool, ignore_eos: bool) -> Any:
    from rooftop.api.bench import served_model_name
    from rooftop.cli.flags import hint
    from rooftop.serving.loadgen.runner import Target

    base = url.removesuffix("/metrics")
    if not served_model:
        with hint("pass --served-model"):
            served_model = served_model_name(base)
    return Target(base, served_model, chat=chat, ignore_eos=ignore_eos)


def _requests(dataset: str | None, n: int, prompt_len: str, output_len: str, chat: bool, seed: int) -> list[Any]:
    from rooftop.serving.loadgen import prompts

    out_lengths = prompts.parse_lengths(output_len, "--output-len")
    if dataset:
        return prompts.dataset(dataset, n, out_lengths, chat, seed)
    return prompts.synthetic(n, prompts.parse_lengths(prompt_len, "--prompt-len"), out_lengths, chat, seed)


def _schedule(trace: str | None, n: int, kind: str, burstiness: float, seed: int) -> Any:
    from rooftop.serving.loadgen import arrivals as arr

    if trace:
        return lambda _level: arr.from_trace(trace)[:n]
    return lambda level: arr.arrivals(n, level, kind, burstiness, seed)


@contextmanager
def _progress(level: float, total: int) -> Iterator[Any]:
    """A transient progress bar on stderr for one level; yields the per-request callback."""
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(f"rate {level:g} req/s" if not math.isnan(level) else "trace", total=total)
        yield lambda _rec: progress.advance(task)


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
