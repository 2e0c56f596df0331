"""report.html_sections: runs named by file and command, differing fields, imported trace tables."""

from __future__ import annotations

from msgspec.structs import replace

from rooftop.api.ingest import import_path
from rooftop.report.html_sections import differing_fields, identity_section, import_sections, run_heading
from tests.conftest import data_path
from tests.report.runs import decode_run


def test_heading_and_identity_name_the_run():
    run = replace(decode_run(), identity={"created": "2026-11-30T18:41:45+00:00", "command_line": "rooftop analyze"})
    assert (
        run_heading(run, 0, "before.json")
        == "Run 1: before.json — analyze · llama-3.1-8b on h100-sxm · 2026-11-30 18:41"
    )
    section = identity_section(run, 0, "before.json")
    assert '<td>file</td><td class="l">before.json</td>' in section and "rooftop analyze" in section
    assert "None" not in section


def test_differing_fields_only():
    run = decode_run()
    table = differing_fields([run], ["a.json"])
    # decode at batch 1 and 64: only the batch differs
    assert "<th>batch</th>" in table and "context" not in table and "model" not in table
    assert differing_fields([replace(run, results=run.results[:1])], ["a.json"]) == ""


def test_an_import_carries_its_timeline_step_and_collective_tables():
    result = import_path(data_path("hta-traces", "nccl_data.json.gz")).results[0]
    html = import_sections(result)
    for heading in ("Timeline", "Kernel time by class", "Collectives", "Per step"):
        assert f"<h3>{heading}</h3>" in html
    assert "all_reduce" in html and "ProfilerStep#6 (last)" in html
    nsys = import_path(data_path("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv")).results[0]
    assert "Kernel classes (46 names, 78,016 instances)" in import_sections(nsys)
