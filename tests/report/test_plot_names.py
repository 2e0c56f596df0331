"""Names with matplotlib math in them (issue 11): `$x^$`, `$\\frac{$` in a title or a model name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from rooftop.report.plot import plain, save_plot
from tests.report.runs import decode_run


def test_dollars_are_escaped() -> None:
    assert plain("$x^$ costs $5") == r"\$x^\$ costs \$5"


@pytest.mark.parametrize("title", ["$x^$", r"$\frac{$", "cost $5 and $10", "$$"])
def test_plot_with_math_in_the_title_is_drawn(tmp_path: Path, title: str) -> None:
    # before: matplotlib's mathtext raised ParseSyntaxException while saving (a traceback, no file)
    path = save_plot([decode_run()], tmp_path / "p.svg", title=title)
    text = path.read_text()
    assert "<svg" in text and "$" in text  # the dollar is drawn as a character


def test_model_folder_named_with_math_plots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rooftop.cli.main import main
    from rooftop.models.presets import config_dict

    folder = tmp_path / r"$\frac{$"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config_dict("llama-3.2-1b")))
    monkeypatch.chdir(tmp_path)
    main(["analyze", "-m", str(folder), "--phase", "decode", "-b", "1", "--plot", "p.png"])
    assert (tmp_path / "p.png").stat().st_size > 10_000
