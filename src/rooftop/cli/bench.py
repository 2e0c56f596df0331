"""`rooftop bench`: open-loop load against an OpenAI-compatible server, with the engine's view beside it."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from rooftop.cli.options import complete_models, device_option
from rooftop.cli.params import OutputFile, Positive, Seconds
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

    values = [parse_seconds(x) if x else None for x in (ttft, tpot, e2e)]
    for name, v in zip(("--slo-ttft", "--slo-tpot", "--slo-e2e"), values):
        if v is not None and not 0 < v < math.inf:
            raise WorkloadError(f"{name} {v:g} s: an objective must be a finite time > 0")
    return SLO(*values)


MAX_REQUESTS = 100_000
MAX_LENGTH = 1 << 20  # tokens in one prompt or answer: the longest context any engine serves
MAX_PROMPT_TOKENS = 1 << 27  # prompt tokens the generator holds for a whole run


def _check_lengths(n: int, prompt: Any, output: Any) -> None:
    """Lengths bounded, so that making the prompts cannot exhaust memory or time."""
    for name, lengths in (("--prompt-len", prompt), ("--output-len", output)):
        longest = max(lengths.high, lengths.mean + 6 * lengths.stddev)
        if longest > MAX_LENGTH:
            raise WorkloadError(f"{name}: {longest:,.0f} tokens in one request (at most {MAX_LENGTH:,})")
    if n * prompt.mean > MAX_PROMPT_TOKENS:
        raise WorkloadError(f"--requests {n} x --prompt-len {prompt.mean}: over {MAX_PROMPT_TOKENS:,} prompt tokens")


@click.command()
@click.argument("url")
@click.option(
    "--model",
    "-m",
    shell_complete=complete_models,
    help="Model preset or config.json for live MFU/MBU (rooftop's analytic model).",
)
@click.option("--served-model", help="Model name sent in requests (default: the first of GET /v1/models).")
@device_option
@click.option(
    "--dtype",
    default="bf16",
    show_default=True,
    help="Dtype the engine runs (weights: as a config.json's quantization_config stores them).",
)
@click.option("--tp", type=click.IntRange(min=1), default=1, show_default=True, help="Tensor-parallel degree.")
@click.option("--peak-tflops", help="Override the compute roof.")
@click.option("--bandwidth", help="Override the memory roof.")
@click.option("--rate", default="1", show_default=True, help="Offered load, requests/s ('inf' = all at once).")
@click.option("--rates", help="Comma list of rates for a curve, e.g. 1,2,4,8 (finds the knee and best goodput).")
@click.option(
    "--burstiness",
    type=Positive(1e6),
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
    "--requests",
    "n_requests",
    type=click.IntRange(1, MAX_REQUESTS),
    default=100,
    show_default=True,
    help="Requests per rate.",
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
    "--timeout", type=Seconds(), default=300.0, show_default=True, help="Per-request timeout (s); counted as failed."
)
@click.option("--max-concurrency", type=click.IntRange(min=1), help="Cap in-flight requests (closes the loop).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option("--no-scrape", is_flag=True, help="Do not read the engine's /metrics before and after.")
@click.option("--model-label", help="Triton: the model whose request counters count (default: the ensemble).")
@click.option("--profile", is_flag=True, help="Record the engine's torch-profiler trace over a window of the load.")
@click.option(
    "--profile-window", metavar="START:END", help="Seconds from the load's start (default: the schedule's middle half)."
)
@click.option(
    "--profile-dir",
    type=click.Path(file_okay=False),
    help="Folder the engine writes traces to (vLLM's torch_profiler_dir), on this machine.",
)
@click.option(
    "--profile-timeout",
    type=click.FloatRange(min=0.1, max=86400),
    default=300.0,
    show_default=True,
    help="Seconds to wait for the traces.",
)
@click.option("--csv", "csv_path", type=OutputFile(), help="Per-request records as CSV.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary JSON.")
@click.option("--output", "-o", type=OutputFile(), help="Write the rooftop.run/1 artifact.")
def bench(url: str, **o: Any) -> None:  # click passes each option by its parameter name
    """Load a serving engine open-loop and report TTFT, TPOT, ITL, E2E, throughput and goodput.

    URL is the server's base, e.g. http://127.0.0.1:8000. Requests leave on schedule whether or not
    earlier ones finished (open loop). The engine's /metrics is read before and after, so the
    report shows its own latency histograms and live MFU/MBU beside the client's numbers.

    \b
    Examples:
      rooftop bench http://127.0.0.1:8000 --model llama-3.1-8b -H h100-sxm \\
          --rate 4 --burstiness 1 --requests 500 --prompt-len 1024:256 \\
          --output-len 256 --slo-ttft 500ms --slo-tpot 50ms
      rooftop bench http://127.0.0.1:8000 --rates 1,2,4,8 --requests 200 \\
          --json > curve.json
      rooftop bench http://127.0.0.1:8000 --chat --dataset prompts.jsonl \\
          --rate 2 --csv requests.csv
    """
    from rooftop.api import bench as api
    from rooftop.api.live_model import live_model

    live = live_model(o["model"], o["hardware"], o["dtype"], o["tp"], o["peak_tflops"], o["bandwidth"])
    n, seed, burstiness = o["n_requests"], o["seed"], o["burstiness"]
    reqs = _requests(o["dataset"], n, o["prompt_len"], o["output_len"], o["chat"], seed)
    kind = o["arrival"] or ("poisson" if burstiness == 1.0 else "gamma")
    schedule = _schedule(o["trace"], n, kind, burstiness, seed)
    levels = [math.nan] if o["trace"] else _rates(o["rate"], o["rates"])
    for level in levels:  # a schedule of a year (--rate 1e-9) is refused before any connection
        schedule(level)
    options = api.LoadOptions(o["timeout"], o["max_concurrency"], not o["no_scrape"], o["model_label"])
    slo, labels = _slo(o["slo_ttft"], o["slo_tpot"], o["slo_e2e"]), {"burstiness": burstiness, "arrival": kind}
    profiling = bool(o["profile"] or o["profile_window"] or o["profile_dir"])
    opts = _profile_options(o["profile_dir"], o["profile_window"], o["profile_timeout"], levels) if profiling else None
    if opts is None:  # (a profiled run checks its trace folder first, then the server)
        check_reachable(url)  # after the options: a typo is named before a missing server
    target = _target(url, o["served_model"], o["chat"], not o["no_ignore_eos"])
    if opts is not None:
        from rooftop.cli.bench_profile import profiled

        done = profiled(target, reqs, schedule(levels[0]), slo, live, opts, options, levels[0], o["output"], _progress)
        _show(done.runs(), done.document(), o["as_json"])
        return
    run = api.run_levels(target, reqs, schedule, levels, slo, live, options, labels, _progress)
    _write(run, live, target, o["csv_path"], o["output"])
    _show(run.runs(), run.document(), o["as_json"])
    _fail_if_nothing_completed(run.records())


def _show(runs: Any, document: dict[str, Any], as_json: bool) -> None:
    """The summary JSON, or the bench tables."""
    if as_json:
        click.echo(dumps(document, indent=1))
        return
    from rooftop.cli.bench_output import render_bench

    render_bench(runs, document)


def check_reachable(url: str, timeout_s: float = 5.0) -> None:
    """Refuse at once, in one line, when nothing listens at URL (instead of a run of failed requests)."""
    import socket
    from urllib.parse import urlsplit

    from rooftop.errors import TelemetryError

    parts = urlsplit(url if "://" in url else f"http://{url}")
    host, port = parts.hostname or "127.0.0.1", parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise TelemetryError(f"cannot connect to {url} ({reason}): is the server running?") from None


def _fail_if_nothing_completed(records: list[tuple[float, Any]]) -> None:
    """A run where every request failed exits 1, naming the first error (the table above shows them all)."""
    if records and not any(r.ok for _, r in records):
        first = next((r.error for _, r in records if r.error), "no token came back")
        click.echo(f"rooftop: error: every request failed ({len(records)} of {len(records)}); first: {first}", err=True)
        raise SystemExit(1)


def _profile_options(folder: str | None, window: str | None, timeout: float, levels: list[float]) -> Any:
    from rooftop.api.bench_window import ProfileOptions

    if not folder:
        raise click.UsageError("--profile needs --profile-dir: the folder the engine writes its traces to")
    if len(levels) != 1:
        raise click.UsageError("--profile runs one load level: pass --rate (or --trace), not --rates")
    bounds = None
    if window:
        try:
            start, end = (float(x) for x in window.split(":"))
        except ValueError:
            raise click.UsageError(f"--profile-window {window!r}: expected START:END in seconds, e.g. 10:20") from None
        bounds = (start, end)
    return ProfileOptions(Path(folder).resolve(), bounds, timeout)


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
    in_lengths = prompts.parse_lengths(prompt_len, "--prompt-len")
    _check_lengths(n, in_lengths, out_lengths)
    if dataset:
        return prompts.dataset(dataset, n, out_lengths, chat, seed)
    return prompts.synthetic(n, in_lengths, out_lengths, chat, seed)


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

    console = Console(stderr=True)
    with Progress(console=console, transient=True, disable=not console.is_terminal) as progress:
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
