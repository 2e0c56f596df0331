"""report.interactive: plotly traces tagged by meta; input strings escaped; sweep charts."""

from __future__ import annotations

import pytest

pytest.importorskip("plotly")

from rooftop.api.sweep import Cohort, sweep
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.models.presets import load_preset
from rooftop.report.chart import build_chart
from rooftop.report.interactive import bound_heatmap, roofline_plotly, throughput_vs_tpot
from tests.report.runs import H100, decode_run


def test_roofline_traces_and_hover() -> None:
    fig = roofline_plotly(build_chart([decode_run()]))
    metas = [t.meta for t in fig.data]
    assert metas.count("roof") == 8  # 5 compute peaks + HBM + link + network (the 400 Gb/s NIC)
    assert metas.count("ridge") == 1
    ops = [t for t in fig.data if t.meta == "ops"]
    assert sum(len(t.x) for t in ops) == 28  # 34 ops less embed, kv_append, softmax at each batch (no intensity)
    # one legend entry per result; each roof labelled on its line in its colour; SI ticks
    assert [t.name for t in ops if t.showlegend] == ["decode b=1 c=2048", "decode b=64 c=2048"]
    labels = {a.text: a.font.color for a in fig.layout.annotations}
    assert labels["bf16/fp16 989 TFLOP/s (datasheet)"] != labels["fp64 34 TFLOP/s (datasheet)"]
    assert "1 PFLOP/s" in fig.layout.yaxis.ticktext and "100 GFLOP/s" in fig.layout.yaxis.ticktext
    hover = ops[0].hovertext[0]
    assert "FLOPs:" in hover and "intensity:" in hover and "roof efficiency:" in hover
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_labels_are_escaped_for_plotly() -> None:
    from msgspec.structs import replace

    run = decode_run()
    evil = replace(run.results[0], points=tuple(replace(p, label="<b>x</b>") for p in run.results[0].points))
    fig = roofline_plotly(build_chart([replace(run, results=(evil,))]))
    hover = next(t for t in fig.data if t.meta == "ops").hovertext[0]
    assert "&lt;b&gt;x&lt;/b&gt;" in hover and "<b>x" not in hover


def test_sweep_charts() -> None:
    run = sweep(
        load_preset("llama-3.1-8b"), H100, Workload(), [1, 64, 512], [2048, 8192], [Cohort(2048, 256)], SLO(tpot_s=0.05)
    )
    result = run.results[0]
    tpot = throughput_vs_tpot(result)
    assert [t.meta for t in tpot.data].count("sweep") == 2  # one curve per context
    slo = next(t for t in tpot.data if t.meta == "slo")
    assert list(slo.x) == [50.0, 50.0]  # the SLO line at 50 ms
    assert any(t.meta == "operating-point" for t in tpot.data)
    heat = bound_heatmap(result)
    z = heat.data[0].z
    assert len(z) == 2 and len(z[0]) == 3  # contexts × batches
    assert z[1][2] == 5.5  # batch 512 at context 8192 does not fit (limit 57): the last category
