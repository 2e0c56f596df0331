"""`rooftop watch`: continuous roofline profiling of running serving engines."""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from rooftop.cli.options import complete_models, device_option
from rooftop.cli.params import DAY_S, OutputFile, Seconds
from rooftop.core.jsonenc import dumps
from rooftop.errors import TelemetryError


def _fetcher(prometheus: str | None, selector: str, timeout_s: float):  # type: ignore[no-untyped-def]
    from rooftop.serving.sources import prometheus_instant
    from rooftop.serving.watch import file_or_url

    if prometheus:
        return lambda _src: prometheus_instant(prometheus, selector, timeout_s)
    return lambda src: file_or_url(src, timeout_s)


@click.command()
@click.argument("sources", nargs=-1)
@click.option("--prometheus", metavar="URL", help="Read a Prometheus server's HTTP API instead of /metrics endpoints.")
@click.option("--selector", default="", help="PromQL label matchers for --prometheus, e.g. 'job=\"vllm\"'.")
@click.option(
    "--since", type=Seconds(30 * DAY_S), help="With --prometheus: a range query over the last SECONDS (one window)."
)
@click.option(
    "--model",
    "-m",
    shell_complete=complete_models,
    help="Model preset or config.json: enables live MFU/MBU (our FLOPs/bytes per token).",
)
@device_option
@click.option(
    "--dtype",
    default="bf16",
    show_default=True,
    help="Dtype the engine runs (weights: as a config.json's quantization_config stores them).",
)
@click.option("--tp", type=click.IntRange(min=1), default=1, show_default=True, help="Tensor-parallel degree.")
@click.option("--peak-tflops", help="Override the compute roof (e.g. a CPU: '2 TFLOP/s').")
@click.option("--bandwidth", help="Override the memory roof, e.g. '50 GB/s'.")
@click.option(
    "--engine",
    help="Force an engine map (vllm, sglang, tgi, llamacpp, triton, trtllm-serve, lmdeploy, aphrodite, dynamo,"
    " nim, ray-vllm).",
)
@click.option("--model-label", help="Triton: the model whose request counters count (default: the ensemble).")
@click.option("--interval", type=Seconds(), default=5.0, show_default=True, help="Seconds between polls.")
@click.option("--count", type=click.IntRange(min=1), help="Stop after this many polls (default: until Ctrl-C).")
@click.option("--once", is_flag=True, help="One snapshot, then exit (counters since the engine started).")
@click.option(
    "--timeout",
    type=Seconds(),
    default=5.0,
    show_default=True,
    help="Per-poll deadline (s), in all; a hang is reported.",
)
@click.option("--log", "log_path", type=OutputFile(), help="Append every sample and event to this JSONL.")
@click.option("--export", "export_addr", metavar="HOST:PORT", help="Serve rooftop_* gauges, e.g. 127.0.0.1:9109.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (one object per window; --once: one object).")
@click.option("--output", "-o", type=OutputFile(), help="Write the rooftop.run/1 artifact at exit.")
def watch(
    sources: tuple[str, ...],
    prometheus: str | None,
    selector: str,
    since: float | None,
    model: str | None,
    hardware: str,
    dtype: str,
    tp: int,
    peak_tflops: str | None,
    bandwidth: str | None,
    engine: str | None,
    model_label: str | None,
    interval: float,
    count: int | None,
    once: bool,
    timeout: float,
    log_path: str | None,
    export_addr: str | None,
    as_json: bool,
    output: str | None,
) -> None:
    """Watch serving engines: tokens/s, live MFU/MBU per phase, TTFT/TPOT, queue, KV, findings.

    SOURCE is an engine URL (http://127.0.0.1:8000 or .../metrics) or a saved exposition file.

    \b
    Examples:
      rooftop watch http://127.0.0.1:8000 --model llama-3.1-8b -H h100-sxm
      rooftop watch vllm.prom --once --json        # offline: a saved /metrics
      rooftop watch http://127.0.0.1:8000 --interval 2 --count 10 \\
          --log watch.jsonl
      rooftop watch --prometheus http://127.0.0.1:9090 --selector 'job="vllm"' \\
          -m llama-3.1-8b
      rooftop watch http://127.0.0.1:8000 -m llama-3.1-8b --export 127.0.0.1:9109
    """
    from rooftop.api.live_model import live_model

    if not sources and not prometheus:
        raise TelemetryError("give a SOURCE (URL or exposition file) or --prometheus URL")
    live = live_model(model, hardware, dtype, tp, peak_tflops, bandwidth)
    names = [f"{prometheus} {selector}".strip()] if prometheus else list(sources)
    if prometheus and since:
        _range(prometheus, selector, since, live, (engine, model_label), as_json, output, timeout)
        return
    from rooftop.cli.watch_loop import WatchLoop

    fetcher = _fetcher(prometheus, selector, timeout)
    loop = WatchLoop(names, fetcher, live, engine, log_path, export_addr, as_json, model_label, output)
    if not prometheus:
        from rooftop.serving.watch import files_or_urls

        loop.watcher.many = lambda srcs, wanted: files_or_urls(srcs, wanted, timeout)
    try:
        if once:
            loop.once()
        else:
            loop.run(interval, count)
    finally:
        loop.close()


def _range(
    prometheus: str,
    selector: str,
    since: float,
    live: Any,
    engine: tuple[str | None, str | None],
    as_json: bool,
    output: str | None,
    timeout_s: float,
) -> None:
    from rooftop.api.window import analyse_window, live_run, snapshot_summary
    from rooftop.serving.sources import prometheus_range
    from rooftop.serving.watch import observe, window

    end = time.time()
    snaps = prometheus_range(prometheus, selector, end - since, end, max(1.0, since / 10), timeout_s)
    if len(snaps) < 2:
        raise TelemetryError(
            f"{prometheus}: fewer than two samples in the last {since:g} s for {selector or 'engines'}"
        )
    name = f"{prometheus} {selector}".strip()
    first, last = observe(snaps[0], name, *engine), observe(snaps[-1], name, *engine)
    summary, result = analyse_window(window(first, last), live)
    out = snapshot_summary(last.scalars, summary)
    if output:
        from rooftop.core import artifact
        from rooftop.core.atomic import write_atomic
        from rooftop.errors import ReportError

        write_atomic(output, artifact.dumps(live_run("watch", [result], live, {"sources": [name]})), ReportError)
    if as_json:
        click.echo(dumps(out, indent=1))
    else:
        from rooftop.cli.watch_output import render_window
        from rooftop.report.layout import make_console

        render_window(out, make_console())


if __name__ == "__main__":  # pragma: no cover
    watch(sys.argv[1:])
