"""Output options every command that yields a run shares: tables (default), --json, -o FILE.

Commands decorate themselves with ``@output_options`` and finish with ``emit(run, **opts)``;
a new output format (a report, a plot) is added here once for every command.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from rooftop.core import artifact
from rooftop.core.artifact import Run
from rooftop.report.tables import render_run

F = TypeVar("F", bound=Callable[..., Any])


def output_options(fn: F) -> F:
    """Add --json and --output/-o to a command."""
    fn = click.option(
        "--output",
        "-o",
        type=click.Path(dir_okay=False, writable=True),
        help="Write the rooftop.run/1 JSON artifact to a file.",
    )(fn)
    fn = click.option(
        "--json", "as_json", is_flag=True, help="Print the rooftop.run/1 JSON artifact instead of tables."
    )(fn)
    return fn


def emit(
    run: Run, as_json: bool = False, output: str | None = None, render: Callable[[Run, Console], None] = render_run
) -> None:
    """Write the artifact where asked, then print JSON or tables."""
    if output:
        Path(output).write_text(artifact.dumps(run), encoding="utf-8")
        click.echo(f"wrote {output}", err=True)
    if as_json:
        click.echo(artifact.dumps(run))
    elif not output:
        render(run, Console())
