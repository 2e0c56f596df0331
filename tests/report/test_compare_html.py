"""report.compare_html: `rooftop compare --report` writes an HTML diff that names both runs (issue 10)."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

pytest.importorskip("plotly")

from rooftop.api.compare import compare
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.report.compare_html import render_compare_html, write_compare_report
from tests.report.runs import decode_run


def _runs():  # type: ignore[no-untyped-def]
    from rooftop.api import analyze
    from rooftop.models.presets import load_preset
    from tests.report.runs import H100

    before = decode_run()
    after = analyze(load_preset("llama-3.1-8b"), H100, [Workload(phase=Phase.DECODE, batch=b, kv_dtype="fp8")
                                                        for b in (1, 64)])  # fmt: skip
    return before, after


def test_the_diff_page_names_both_runs_and_highlights_bound_changes(tmp_path):
    before, after = _runs()
    cmp = compare(before, after, names=("before.json", "after.json"))
    page = render_compare_html(cmp, before, after, ("before.json", "after.json"))
    assert "<title>Compare before.json → after.json</title>" in page
    assert "Run 1: before.json — analyze · llama-3.1-8b on h100-sxm" in page
    assert "What differs between the results" in page and "kv_dtype" in page
    # kv_append: memory:kv → memory:activations once the KV is fp8 (its row is highlighted)
    assert "<tr class='changed'>" in page and "memory:kv → memory:activations" in page
    # decode b=64: 9.81 ms → 7.25 ms (KV bytes halve): ×0.738
    assert "×0.738" in page and "step time" in page
    out = write_compare_report(cmp, before, after, ("a", "b"), tmp_path / "diff.html")
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_a_forced_comparison_says_why(tmp_path):
    before, after = _runs()
    other = replace(after, roofs=replace(after.roofs, name="h200-sxm"))
    cmp = compare(before, other, force=True, names=("a.json", "b.json"))
    assert "forced: " in render_compare_html(cmp, before, other, ("a.json", "b.json"))
