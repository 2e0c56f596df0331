"""report.html: self-contained (inlined plotly.js, no network), every input string escaped, CSP by hash."""

from __future__ import annotations

import re

import pytest
from msgspec.structs import replace

pytest.importorskip("plotly")

from rooftop.core.artifact import Run
from rooftop.core.findings import Finding, Remedy
from rooftop.report.html import render_html
from tests.report.runs import decode_run

HOSTILE = "<img src=x onerror=alert(1)>"


def hostile_run() -> Run:
    """A run whose model name, op labels, finding text and roof source all carry markup."""
    run = decode_run()
    results = []
    for r in run.results:
        points = tuple(replace(p, label=f"{p.label}{HOSTILE}") for p in r.points)
        finding = Finding("x", "warn", f"title {HOSTILE}", "kv", {"k": HOSTILE}, (Remedy(HOSTILE, HOSTILE),), HOSTILE)
        results.append(replace(r, workload={**r.workload, "model": HOSTILE}, points=points, findings=(finding,)))
    roofs = replace(run.roofs, name=f"h100{HOSTILE}")
    return replace(run, results=tuple(results), roofs=roofs, identity={**run.identity, "model": {"name": HOSTILE}})


def test_self_contained_and_offline() -> None:
    page = render_html([decode_run()])
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<script[^>]+src=", page)  # every script is inline
    outside_bundle = re.sub(r"<script>.*?</script>", "", page, flags=re.S)
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", outside_bundle)  # nothing fetched from anywhere
    assert "<link" not in outside_bundle
    assert 'Plotly.newPlot("roofline"' in page
    assert page.count('<table class="sortable">') >= 3  # roofs + one op table per result


def test_hostile_strings_stay_text() -> None:
    page = render_html([hostile_run()])
    assert HOSTILE not in page  # never raw, anywhere (HTML or embedded JSON)
    assert "&lt;img src=x onerror=alert(1)&gt;" in page  # shown as text
    assert "\\u0026lt;img" in page  # figure JSON: HTML-escaped for plotly, then & < > as JSON escapes


def test_csp_allows_only_the_pages_own_scripts() -> None:
    page = render_html([decode_run()])
    csp = re.search(r"Content-Security-Policy' content=\"([^\"]+)\"", page)
    assert csp is not None
    policy = csp.group(1)
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy.split("style-src")[0]
    assert policy.count("'sha256-") == page.count("<script>")


def test_sweep_report_has_its_charts() -> None:
    from rooftop.api.sweep import Cohort, sweep
    from rooftop.core.slo import SLO
    from rooftop.core.workload import Workload
    from rooftop.hardware.catalog import get_roofs
    from rooftop.models.presets import load_preset

    run = sweep(
        load_preset("llama-3.1-8b"),
        get_roofs("h100-sxm"),
        Workload(),
        [1, 64, 512],
        [2048, 8192],
        [Cohort(2048, 256)],
        SLO(tpot_s=0.05),
    )
    page = render_html([run])
    assert 'id="sweep-0-tpot-0"' in page and 'id="sweep-0-heatmap-0"' in page
    assert '"meta":"slo"' in page.replace(" ", "") and "sweep-operating-point" in page


def test_a_remedys_prediction_is_in_the_report() -> None:
    # the terminal showed "predicted: ..." under a remedy; the HTML report left it out
    predicted = {"ttft_s": [0.033, 0.033], "tpot_s": [0.00456, 0.00165], "tokens_per_s_per_gpu": [219.1, 605.9]}
    remedy = Remedy("raise the batch", "TTFT grows", predicted=predicted)
    finding = Finding("decode-memory-bound", "warn", "decode reads weights per token", "weights", {}, (remedy,))
    run = decode_run()
    run = replace(run, results=tuple(replace(r, findings=(finding,)) for r in run.results))
    page = render_html([run])
    assert "predicted: TPOT 4.56 ms → 1.65 ms · tokens/s/GPU 219 → 606 · fits" in page
