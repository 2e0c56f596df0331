"""report.plot: a returned (never shown) Figure; PNG read back at the expected size; SVG; bad suffix."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from rooftop.errors import ReportError
from rooftop.report.plot import DPI, SIZE_IN, roofline_figure, save_plot
from tests.report.runs import decode_run


def test_png_reads_back_at_the_expected_size(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from matplotlib.image import imread

    path = save_plot([decode_run()], tmp_path / "roofline.png")
    image = imread(path)
    assert image.shape[:2] == (int(SIZE_IN[1] * DPI), int(SIZE_IN[0] * DPI))  # 650 × 1000 pixels
    assert np.std(image[..., :3]) > 0.05  # not a blank canvas
    # points are drawn in the decode colour #1b78b4 = (27, 120, 180)
    rgb = (image[..., :3] * 255).round()
    assert np.any(np.all(np.abs(rgb - [27, 120, 180]) < 8, axis=-1))


def test_svg_is_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = save_plot([decode_run()], tmp_path / "roofline.svg")
    assert path.read_text().lstrip().startswith("<?xml") and "<svg" in path.read_text()


def test_figure_is_returned_not_shown() -> None:
    from matplotlib.figure import Figure

    fig = roofline_figure([decode_run()])
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


def test_plotting_never_imports_pyplot() -> None:
    code = (
        "import sys; from rooftop.report.plot import roofline_figure; from tests.report.runs import decode_run;"
        "roofline_figure([decode_run()]); print('matplotlib.pyplot' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_unknown_suffix_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ReportError, match=r"\.png or \.svg"):
        save_plot([decode_run()], tmp_path / "roofline.jpg")
