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
from typing import TYPE_CHECKING, Any, TypeVar

import click
from msgspec.structs import replace

from rooftop.cli.flags import flag
from rooftop.cli.params import OutputFile
from rooftop.core import artifact
from rooftop.core.artifact import Run
from rooftop.core.atomic import write_atomic
from rooftop.errors import ReportError
from rooftop.report import PLOT_SUFFIXES

if TYPE_CHECKING:  # rich loads only when tables are drawn (a --json run never pays for it)
    from rich.console import Console

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
        type=OutputFile(PLOT_SUFFIXES),
        help="Write the roofline chart as a static image (FILE.png or FILE.svg).",
    )(out)
    out = click.option(
        "--report",
        type=OutputFile(),
        help="Write a self-contained HTML report (works offline).",
    )(out)
    out = click.option(
        "--output",
        "-o",
        type=OutputFile(),
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
    run: Run, as_json: bool = False, output: str | None = None, render: Callable[[Run, Console], None] | None = None
) -> None:
    """Write the artifact, report and plot where asked, then print JSON or tables (none with --quiet).

    Every file is rendered first and written after (each atomically), so a failure while
    rendering the report or the plot leaves none of them half-made. Files never hide the tables.
    """
    files = requested_files()
    run = replace(run, identity={**run.identity, "command_line": command_line()})
    pending: list[tuple[str, str | bytes]] = []
    if output:
        pending.append((output, artifact.dumps(run)))
    if files["report"]:
        from rooftop.report.html import render_html

        with flag("--report"):
            pending.append((files["report"], render_html([run], names=[output or run.identity["command_line"]])))
    if files["plot"]:
        from rooftop.report.plot import render_plot

        with flag("--plot"):
            pending.append((files["plot"], render_plot([run], files["plot"])))
    for path, data in pending:
        write_atomic(path, data, ReportError)
        click.echo(f"wrote {path}", err=True)
    if as_json:
        click.echo(artifact.dumps(run))
    elif not files.get("quiet"):
        from rooftop.report.layout import make_console
        from rooftop.report.tables import render_run

        (render or render_run)(run, make_console())
