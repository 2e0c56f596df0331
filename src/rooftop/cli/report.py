"""`rooftop report`: saved run artifacts -> one self-contained HTML report (and optionally a PNG/SVG)."""

from __future__ import annotations

import click

from rooftop.cli.flags import flag
from rooftop.core import artifact


@click.command()
@click.argument("artifacts", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option(
    "--output", "-o", required=True, type=click.Path(dir_okay=False, writable=True), help="The HTML file to write."
)
@click.option(
    "--plot", type=click.Path(dir_okay=False, writable=True), help="Also write the roofline as FILE.png or FILE.svg."
)
@click.option("--title", default="", help="Page title (default: models and devices).")
def report(artifacts: tuple[str, ...], output: str, plot: str | None, title: str) -> None:
    """Draw saved runs (rooftop.run/1 JSON) into one offline HTML report.

    The report holds the identity of each run, the roofs with their kind and source, the
    roofline (every op of every run, hover for all fields), sortable per-op tables, totals,
    findings with evidence and remedies, and for sweeps the throughput-vs-TPOT and bound charts.

    \b
    Examples:
      rooftop analyze -o run.json && rooftop report run.json -o report.html
      rooftop report before.json after.json -o both.html --plot both.png
      rooftop sweep --slo-tpot 50ms -o sweep.json && rooftop report sweep.json -o sweep.html
    """
    from rooftop.report.html import write_report

    runs = [artifact.load(path) for path in artifacts]
    write_report(runs, output, title)
    click.echo(f"wrote {output}", err=True)
    if plot:
        from rooftop.report.plot import save_plot

        with flag("--plot"):
            save_plot(runs, plot, title)
        click.echo(f"wrote {plot}", err=True)
