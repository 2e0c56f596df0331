"""`rooftop report`: saved run artifacts -> one self-contained HTML report (and optionally a PNG/SVG)."""

from __future__ import annotations

import click

from rooftop.cli.flags import flag
from rooftop.cli.params import OutputFile
from rooftop.core import artifact


@click.command()
@click.argument("artifacts", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option(
    "--output", "-o", default="report.html", show_default=True, type=OutputFile(), help="The HTML file to write."
)
@click.option("--plot", type=OutputFile((".png", ".svg")), help="Also write the roofline as FILE.png or FILE.svg.")
@click.option("--title", default="", help="Page title (default: models and devices).")
def report(artifacts: tuple[str, ...], output: str, plot: str | None, title: str) -> None:
    """Draw saved runs (rooftop.run/1 JSON) into one offline HTML report.

    The report holds the identity of each run, the roofs with their kind and source, the
    roofline (every op of every run, hover for all fields), sortable per-op tables, totals,
    findings with evidence and remedies, and for sweeps the throughput-vs-TPOT and bound charts.

    \b
    Examples:
      rooftop analyze -q -o run.json && rooftop report run.json  # report.html
      rooftop report before.json after.json -o both.html --plot both.png
      rooftop sweep --slo-tpot 50ms -o sweep.json && \\
          rooftop report sweep.json -o sweep.html
    """
    from rooftop.core.atomic import write_atomic
    from rooftop.errors import ReportError
    from rooftop.report.html import render_html

    runs = [artifact.load(path) for path in artifacts]
    pending: list[tuple[str, str | bytes]] = [(output, render_html(runs, title, names=list(artifacts)))]
    if plot:
        from rooftop.report.plot import render_plot

        with flag("--plot"):
            pending.append((plot, render_plot(runs, plot, title)))
    for path, data in pending:  # rendered first, then each written whole
        write_atomic(path, data, ReportError)
        click.echo(f"wrote {path}", err=True)
