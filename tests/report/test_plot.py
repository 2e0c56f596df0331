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


def test_the_static_chart_names_ops_labels_roofs_and_keeps_the_legend_off_the_data() -> None:
    fig = roofline_figure([decode_run()])
    (ax,) = fig.axes
    texts = [t.get_text() for t in ax.texts]
    # issue 10: the static PNG named no operator; the top ones by time now are (gate/up/down_proj at b=64 ...),
    # one label per place: at b=1 and at b=64 the 8 weight GEMMs (q, k, v, o, gate, up, down, lm_head) each
    # sit at one intensity and FLOP/s; their names were drawn on top of each other
    assert [t for t in texts if "_proj" in t] == ["gate_proj, up_proj, down_proj +5 more"] * 2
    # every roof labelled on its line, each compute roof in its own colour
    labels = {t.get_text(): t.get_color() for t in ax.texts if "(datasheet)" in t.get_text()}
    assert (
        "HBM 3.35 TB/s (datasheet)" in labels
        and labels["fp64 34 TFLOP/s (datasheet)"] != labels["bf16/fp16 989 TFLOP/s (datasheet)"]
    )
    # SI ticks with units, a legend outside the axes (a figure legend, none on the axes), the unplaced ops listed
    fig.canvas.draw()
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert "1 PFLOP/s" in ticks and "100 GFLOP/s" in ticks
    assert ax.get_legend() is None and len(fig.legends) == 1
    assert [t.get_text() for t in fig.legends[0].get_texts()][:2] == ["decode b=1 c=2048", "decode b=64 c=2048"]
    assert fig.get_supxlabel().startswith(
        "not drawn (no FLOPs or no bytes, so no intensity): embed, kv_append, softmax"
    )


def test_roof_labels_do_not_overlap_and_follow_their_lines() -> None:
    # the H200 profile: bf16 784 and fp16 753 TFLOP/s measured (4 % apart: their labels sat on each other),
    # L2 6.24 and HBM 4.29 TB/s (parallel lines a few points apart)
    import math

    from rooftop.core.artifact import load
    from tests.conftest import data_path

    fig = roofline_figure([load(data_path("gpu/profile-llama-3.2-1b-h200.json"))])
    fig.canvas.draw()
    ax = fig.axes[0]
    texts = {t.get_text(): t for t in ax.texts if "(measured)" in t.get_text()}
    assert {k.split()[0] for k in texts} == {"fp8", "bf16", "fp16", "fp32", "L2", "HBM"}
    boxes = {k: t.get_window_extent() for k, t in texts.items()}
    names = sorted(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if a.split()[0] in ("L2", "HBM") or b.split()[0] in ("L2", "HBM"):
                continue  # rotated: their boxes are axis-aligned hulls
            overlap = boxes[a].intersection(boxes[a], boxes[b])
            assert overlap is None or overlap.height < 2, (a, b)
    # a memory label's angle is its line's slope on the final canvas (the layout shrinks the axes first)
    hbm = next(t for k, t in texts.items() if k.startswith("HBM"))
    line = next(ln for ln in ax.lines if len(ln.get_xdata()) == 2 and ln.get_xdata()[0] < 1e-4)
    (x0, y0), (x1, y1) = ax.transData.transform(list(zip(line.get_xdata(), line.get_ydata())))
    assert hbm.get_rotation() == pytest.approx(math.degrees(math.atan2(y1 - y0, x1 - x0)), abs=0.5)
