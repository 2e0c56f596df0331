"""The `rooftop watch` loop: poll, analyse each window, print (rich live table or JSON lines), export."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import click

from rooftop.cli.flags import flag
from rooftop.cli.watch_output import _num, _pct, event_line, one_line, quantile
from rooftop.core.artifact import Result
from rooftop.core.atomic import write_atomic
from rooftop.core.jsonenc import dumps
from rooftop.errors import ReportError


def _table(latest: dict[str, dict[str, Any]], errors: dict[str, str]) -> Any:
    from rich.table import Table

    t = Table(title="rooftop watch", expand=False)
    for col in (
        "source",
        "engine",
        "prefill tok/s",
        "decode tok/s",
        "MFU pre/dec",
        "MBU dec",
        "TTFT p50/p99",
        "TPOT p50",
        "wait",
        "KV",
        "finding",
    ):
        t.add_column(col, no_wrap=col not in ("source", "finding"), overflow="fold")  # numbers never wrap
    for src, s in latest.items():
        rates, mfu, mbu, lat = s.get("rates") or {}, s.get("mfu") or {}, s.get("mbu") or {}, s.get("latency") or {}
        ttft, tpot = lat.get("ttft_s") or {}, lat.get("tpot_s") or {}
        samples = s.get("samples") or {}
        t.add_row(
            src,
            s["engine"],
            _num(rates.get("prompt_tokens_per_s")),
            _num(rates.get("generation_tokens_per_s")),
            f"{_pct(mfu.get('prefill'))} / {_pct(mfu.get('decode'))}",
            _pct(mbu.get("decode")),
            f"{quantile(ttft, 'p50')} / {quantile(ttft, 'p99')}",
            quantile(tpot, "p50"),
            _num(samples.get("requests_waiting")),
            _pct(samples.get("kv_usage")),
            s["findings"][0]["title"] if s.get("findings") else "",
        )
    for src, err in errors.items():
        t.add_row(src, "[red]down[/red]", "", "", "", "", "", "", "", "", f"[red]{err}[/red]")
    return t


class WatchLoop:
    """Glue between the Watcher (serving), the live accounting (api) and the terminal/exporter."""

    def __init__(
        self,
        sources: list[str],
        fetch: Callable[[str], Any],
        live: Any,
        engine: str | None,
        log_path: str | None,
        export_addr: str | None,
        as_json: bool,
        model_label: str | None = None,
        output: str | None = None,
    ) -> None:
        from rooftop.serving.watch import JsonlLog, Watcher

        self.live, self.as_json = live, as_json
        self.watcher = Watcher(sources, fetch, JsonlLog(log_path) if log_path else None, engine, model_label)
        self.noted: set[str] = set()
        self.exporter = None
        if export_addr:
            from rooftop.serving.exporter import Exporter

            with flag("--export"):
                self.exporter = Exporter(export_addr)
            click.echo(
                f"rooftop: exporting rooftop_* gauges on http://{self.exporter.host}:{self.exporter.port}/metrics",
                err=True,
            )
        self.output = output
        self.results: list[Result] = []  # kept only for the artifact (-o): a watch without it runs for days
        self.latest: dict[str, dict[str, Any]] = {}
        self.errors: dict[str, str] = {}
        self.seen_events = 0

    def _handle(self, windows: list[Any]) -> list[dict[str, Any]]:
        from rooftop.api.window import analyse_window, snapshot_summary

        out = []
        for w in windows:
            summary, result = analyse_window(w, self.live)
            obs = self.watcher.state[w.source].last
            s = snapshot_summary(obs.scalars if obs else {}, summary)
            st = self.watcher.state[w.source]
            s["up"], s["scrape_duration_s"] = 1, st.scrape_duration_s
            if obs is not None:
                s["renamed"], s["request_models"] = list(obs.deprecated), list(obs.models)
                self._note_renames(w.source, obs.deprecated)
            self.latest[w.source] = s
            if self.output:
                self.results.append(result)
            if self.exporter:
                self.exporter.update(w.source, s)
            out.append(s)
        self.errors = {src: st.last_error for src, st in self.watcher.state.items() if st.last_error}
        now = time.time()
        for src, st in self.watcher.state.items():
            if st.stale(now) and self.latest.pop(src, None) is not None and self.exporter:
                self.exporter.stale(src)  # as Prometheus: a failed scrape makes the source's series stale
        if self.exporter:
            for src in self.errors:
                self.exporter.down(src)
        return out

    def _note_renames(self, source: str, renamed: tuple[str, ...]) -> None:
        """Say once per source (stderr; JSON carries ``renamed``) which deprecated metric names were read."""
        if renamed and source not in self.noted and not self.as_json:
            self.noted.add(source)
            for r in renamed:
                click.echo(f"rooftop: note: {source}: renamed metric in use: {r}", err=True)

    def _events(self) -> list[dict[str, Any]]:
        new = self.watcher.events[self.seen_events :]
        self.seen_events = len(self.watcher.events)
        return new

    def once(self) -> None:
        """One snapshot per source: counters since the engine started (no rates)."""
        from rooftop.api.window import since_start

        self.watcher.poll()
        windows = [since_start(st.last) for st in self.watcher.state.values() if st.last is not None]
        summaries = self._handle(windows)
        if not summaries:
            from rooftop.errors import TelemetryError

            raise TelemetryError("; ".join(self.errors.values()) or "no source answered")
        for e in self._events():
            click.echo("rooftop: warning: " + event_line(e).removeprefix("rooftop: "), err=True)
        if self.as_json:
            click.echo(dumps(summaries[0] if len(summaries) == 1 else {"sources": summaries}, indent=1))
        else:
            from rooftop.cli.watch_output import render_window
            from rooftop.report.layout import make_console

            console = make_console()
            for k, s in enumerate(summaries):
                if k:
                    console.print()
                render_window(s, console)

    def run(self, interval_s: float, count: int | None) -> None:
        """Poll until ``count`` polls or Ctrl-C; JSON lines, plain lines, or a rich live table on a TTY."""
        import sys

        if self.as_json or not sys.stdout.isatty():

            def emit(windows: list[Any]) -> None:
                lines = [dumps(s) if self.as_json else one_line(s) for s in self._handle(windows)]
                events = [dumps(e) if self.as_json else event_line(e) for e in self._events()]
                if self.as_json:
                    lines += events
                if lines:  # one write per poll, not one per source
                    click.echo("\n".join(lines))
                if events and not self.as_json:
                    click.echo("\n".join(events), err=True)
                sys.stdout.flush()

            self.watcher.run(interval_s, emit, count)
            return
        from rich.live import Live

        with Live(_table({}, {}), refresh_per_second=2) as view:

            def show(windows: list[Any]) -> None:
                self._handle(windows)
                self._events()
                view.update(_table(self.latest, self.errors))

            self.watcher.run(interval_s, show, count)

    def close(self) -> None:
        """Write the artifact (if asked) and stop the exporter."""
        if output := self.output:
            from rooftop.api.window import live_run
            from rooftop.core import artifact

            run = live_run("watch", self.results, self.live, {"sources": self.watcher.sources})
            write_atomic(output, artifact.dumps(run), ReportError)
            click.echo(f"wrote {output}", err=True)
        if self.exporter:
            self.exporter.close()
