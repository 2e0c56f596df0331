"""Output options every command that yields a run shares: tables (default), --json, -o FILE, --report, --plot.

Commands decorate themselves with ``@output_options`` and finish with ``emit(run, **opts)``;
a new output format is added here once for every command. ``--report`` and ``--plot`` do not
reach the command's own signature: the decorator keeps them on the click context and ``emit``
reads them back, so every command using ``@output_options`` gets them without a change.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from rooftop.cli.flags import flag
from rooftop.core import artifact
from rooftop.core.artifact import Run
from rooftop.report.tables import render_run

F = TypeVar("F", bound=Callable[..., Any])

_META = "rooftop.output"


def output_options(fn: F) -> F:
    """Add --json, --output/-o, --report FILE.html and --plot FILE.png|svg to a command."""

    @functools.wraps(fn)
    def wrapper(*args: Any, report: str | None = None, plot: str | None = None, **kwargs: Any) -> Any:
        ctx = click.get_current_context(silent=True)
        if ctx is not None:
            ctx.meta[_META] = {"report": report, "plot": plot}
        return fn(*args, **kwargs)

    out: Any = wrapper
    out = click.option(
        "--plot",
        type=click.Path(dir_okay=False, writable=True),
        help="Write the roofline chart as a static image (FILE.png or FILE.svg).",
    )(out)
    out = click.option(
        "--report",
        type=click.Path(dir_okay=False, writable=True),
        help="Write a self-contained HTML report (works offline).",
    )(out)
    out = click.option(
        "--output",
        "-o",
        type=click.Path(dir_okay=False, writable=True),
        help="Write the rooftop.run/1 JSON artifact to a file.",
    )(out)
    out = click.option(
        "--json", "as_json", is_flag=True, help="Print the rooftop.run/1 JSON artifact instead of tables."
    )(out)
    return out  # type: ignore[no-any-return]


def requested_files() -> dict[str, str | None]:
    """The --report / --plot paths of the running command (both None outside a command)."""
    ctx = click.get_current_context(silent=True)
    found = ctx.find_root().meta.get(_META) if ctx is not None else None
    return dict(found) if found else {"report": None, "plot": None}


def emit(
    run: Run, as_json: bool = False, output: str | None = None, render: Callable[[Run, Console], None] = render_run
) -> None:
    """Write the artifact, report and plot where asked, then print JSON or (with no file asked) tables."""
    files = requested_files()
    if output:
        Path(output).write_text(artifact.dumps(run), encoding="utf-8")
        click.echo(f"wrote {output}", err=True)
    if files["report"]:
        from rooftop.report.html import write_report

        with flag("--report"):
            write_report([run], files["report"])
        click.echo(f"wrote {files['report']}", err=True)
    if files["plot"]:
        from rooftop.report.plot import save_plot

        with flag("--plot"):
            save_plot([run], files["plot"])
        click.echo(f"wrote {files['plot']}", err=True)
    if as_json:
        click.echo(artifact.dumps(run))
    elif not (output or files["report"] or files["plot"]):
        render(run, Console())
