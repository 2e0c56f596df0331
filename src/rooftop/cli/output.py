"""Output options every command that yields a run shares: tables (default), --json, -o, --report, --plot, -q.

Commands decorate themselves with ``@output_options`` and finish with ``emit(run, **opts)``;
a new output format is added here once for every command. ``--report`` and ``--plot`` do not
reach the command's own signature: the decorator keeps them on the click context and ``emit``
reads them back, so every command using ``@output_options`` gets them without a change. Files
never hide the tables; ``--quiet`` does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from rooftop.cli.flags import flag
from rooftop.core import artifact
from rooftop.core.artifact import Run
from rooftop.report.layout import make_console
from rooftop.report.tables import render_run

F = TypeVar("F", bound=Callable[..., Any])

_META = "rooftop.output"


def output_options(fn: F) -> F:
    """Add --json, --output/-o, --report FILE.html and --plot FILE.png|svg to a command."""

    @functools.wraps(fn)
    def wrapper(
        *args: Any, report: str | None = None, plot: str | None = None, quiet: bool = False, **kwargs: Any
    ) -> Any:
        ctx = click.get_current_context(silent=True)
        if ctx is not None:
            ctx.meta[_META] = {"report": report, "plot": plot, "quiet": quiet}
        return fn(*args, **kwargs)

    out: Any = wrapper
    out = click.option(
        "--quiet",
        "-q",
        is_flag=True,
        help="Print no tables (files asked for with -o/--report/--plot are still written).",
    )(out)
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


def command_line() -> str:
    """The command as typed ('rooftop analyze --phase decode -b 1'), quoted where needed."""
    import shlex
    import sys

    return " ".join(["rooftop", *(shlex.quote(a) for a in sys.argv[1:])])


def requested_files() -> dict[str, Any]:
    """The --report / --plot paths and --quiet of the running command (None/False outside a command)."""
    ctx = click.get_current_context(silent=True)
    found = ctx.find_root().meta.get(_META) if ctx is not None else None
    return dict(found) if found else {"report": None, "plot": None, "quiet": False}


def emit(
    run: Run, as_json: bool = False, output: str | None = None, render: Callable[[Run, Console], None] = render_run
) -> None:
    """Write the artifact, report and plot where asked, then print JSON or tables (none with --quiet)."""
    files = requested_files()
    run = replace(run, identity={**run.identity, "command_line": command_line()})
    if output:
        Path(output).write_text(artifact.dumps(run), encoding="utf-8")
        click.echo(f"wrote {output}", err=True)
    if files["report"]:
        from rooftop.report.html import write_report

        with flag("--report"):
            write_report([run], files["report"], names=[output or run.identity["command_line"]])
        click.echo(f"wrote {files['report']}", err=True)
    if files["plot"]:
        from rooftop.report.plot import save_plot

        with flag("--plot"):
            save_plot([run], files["plot"])
        click.echo(f"wrote {files['plot']}", err=True)
    if as_json:
        click.echo(artifact.dumps(run))
    elif not files.get("quiet"):
        render(run, make_console())
