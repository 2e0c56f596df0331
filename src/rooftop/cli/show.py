"""`rooftop show`: render a saved rooftop.run/1 artifact in the terminal, as the command that wrote it did."""

from __future__ import annotations

from collections.abc import Callable

import click
from rich.console import Console

from rooftop.core import artifact
from rooftop.core.artifact import Run
from rooftop.report.layout import make_console


def renderer(run: Run) -> Callable[[Run, Console], None]:
    """The terminal renderer of the command that produced ``run`` (live points for watch and bench)."""
    command = run.command.split()[0] if run.command else ""
    if command == "profile":
        from rooftop.report.profile import render_profile

        return render_profile
    if command == "import":
        from rooftop.report.imported import render_import

        return render_import
    if command == "sweep":
        from rooftop.report.sweep_table import render_sweep_run

        return render_sweep_run
    if command.startswith("analyze"):
        from rooftop.report.tables import render_run

        return render_run
    from rooftop.report.tables import render_points_run  # watch, bench: live points

    return render_points_run


@click.command()
@click.argument("artifacts", nargs=-1, required=True, type=click.Path(dir_okay=False))
def show(artifacts: tuple[str, ...]) -> None:
    """Print saved runs (rooftop.run/1 JSON from -o or --json) as the terminal tables of their command.

    \b
    Examples:
      rooftop analyze -o run.json --quiet && rooftop show run.json
      rooftop show before.json after.json
    """
    console = make_console()
    for i, path in enumerate(artifacts):
        run = artifact.load(path)
        if len(artifacts) > 1:
            console.print(("\n" if i else "") + f"== {path} ({run.command}) ==", style="bold", markup=False)
        renderer(run)(run, console)
