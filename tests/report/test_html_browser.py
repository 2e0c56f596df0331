"""The HTML report in a real headless chromium: loads without console errors, draws every op, runs no input."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.report.browser import chromium, console_errors

pytestmark = pytest.mark.slow

HOSTILE = "<img src=x onerror=alert(1)>"

COUNT_POINTS = """
var gd = document.getElementById('roofline');
var traces = gd.querySelectorAll('.scatterlayer .trace');
var drawn = {}; var meta = gd.data.map(function (t) { return t.meta; });
traces.forEach(function (g, i) {
  var m = meta[i]; drawn[m] = (drawn[m] || 0) + g.querySelectorAll('.points path.point').length;
});
return drawn;
"""


def _load(driver, path: Path) -> None:  # type: ignore[no-untyped-def]
    driver.get(path.resolve().as_uri())
    for _ in range(100):  # wait for plotly to finish drawing (no timing assertion)
        if driver.execute_script("return !!document.querySelector('#roofline .scatterlayer')"):
            return
        time.sleep(0.1)


def test_analyze_report_loads_cleanly_and_draws_every_op(tmp_path: Path) -> None:
    report, artifact_path = tmp_path / "report.html", tmp_path / "run.json"
    args = ["--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--phase", "decode", "--batch", "1,64"]
    proc = run_cli("analyze", *args, "--context", "2048", "--report", str(report), "-o", str(artifact_path))
    assert proc.returncode == 0, proc.stderr
    expected_ops = sum(len(r["ops"]) for r in json.loads(artifact_path.read_text())["results"])
    assert expected_ops == 2 * 17  # llama-3.1-8b decode: 17 operators per workload, two workloads
    with chromium() as driver:
        _load(driver, report)
        drawn = driver.execute_script(COUNT_POINTS)
        fetched = driver.execute_script("return performance.getEntriesByType('resource').length")
        errors = console_errors(driver)
    assert fetched == 0  # nothing loaded from anywhere: the page is self-contained
    assert errors == []
    # embed, kv_append (no FLOPs) and softmax (no HBM bytes) are listed under the chart, not drawn (issue 10)
    assert drawn["ops"] == expected_ops - 2 * 3 == 28
    assert drawn["ridge"] == 5  # one ridge per distinct compute peak of h100-sxm


def test_hostile_model_name_stays_text(tmp_path: Path) -> None:
    from importlib import resources

    preset = resources.files("rooftop.models").joinpath("presets/llama-3.1-8b.json").read_text(encoding="utf-8")
    folder = tmp_path / HOSTILE  # the model is named after its folder
    folder.mkdir()
    (folder / "config.json").write_text(preset, encoding="utf-8")
    report, artifact_path = tmp_path / "hostile.html", tmp_path / "hostile.json"
    args = ["--model", str(folder), "--phase", "decode", "--batch", "1", "--report", str(report)]
    proc = run_cli("analyze", *args, "-o", str(artifact_path))
    assert proc.returncode == 0, proc.stderr
    assert HOSTILE in artifact_path.read_text()  # the name really is hostile in the input
    with chromium() as driver:
        _load(driver, report)  # an alert() would make this and every later call raise
        images = driver.execute_script("return document.querySelectorAll('img').length")
        text = driver.execute_script("return document.body.innerText")
        title = driver.title
        errors = console_errors(driver)
    assert images == 0
    assert HOSTILE in text and HOSTILE in title  # shown literally, as text
    assert errors == []
