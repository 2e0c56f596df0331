"""Artifacts with the right schema tag but wrong types inside: one line naming file, field, value.

Before (issue 11) these crashed `report` and `compare` with tracebacks: Infinity where a number
belongs, a number where an object is expected, an op that is a string; the fuzzing of this
branch added a sweep row whose columns do not match and an operating point outside the sweep.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rooftop.api import analyze, workloads_for
from rooftop.core import artifact
from rooftop.core.artifact_schema import ArtifactDoc, check_sections
from rooftop.core.points import Phase
from rooftop.core.schema import convert
from rooftop.core.workload import Workload
from rooftop.errors import ArtifactError
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset

COLUMNS = ["phase", "batch", "context", "tpot_s", "tokens_per_s", "goodput_tokens_per_s", "fits", "bound"]


@pytest.fixture(scope="module")
def good() -> str:
    ws = workloads_for([Phase.DECODE], [1], [128], [128], Workload())
    return artifact.dumps(analyze(load_preset("llama-3.2-1b"), get_roofs("h100-sxm"), ws))


def load(tmp_path: Path, data: dict) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))  # allow_nan: writes Infinity and NaN as a hostile file would
    artifact.load(path)


def where(tmp_path: Path) -> str:
    return f"{tmp_path / 'run.json'}: malformed rooftop.run/1 artifact: "


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: d["results"][0]["ops"][1].update(flops=float("inf")),
            "results[0].ops[1].flops = inf: not a finite number",
        ),
        (lambda d: d["results"][0]["ops"][1].update(bytes=-5), "results[0].ops[1].bytes = -5: must be ≥ 0"),
        (lambda d: d["results"][0]["ops"].__setitem__(0, "embed"), "results[0].ops[0] = 'embed': not a table/object"),
        (lambda d: d["results"][0].update(totals=7), "results[0].totals = 7: not a table/object (got an integer)"),
        (lambda d: d.update(hardware=1), "hardware = 1: not a table/object (got an integer)"),
        (
            lambda d: d["hardware"]["compute"].update(bf16=0),
            "hardware.compute = {'fp64': 34000000000000.0, 'fp32': 67...: a value must be > 0",
        ),
        (
            lambda d: d["results"][0]["totals"].update(mfu=float("nan")),
            "results[0].totals.mfu = nan: not a finite number",
        ),
        (
            lambda d: d["results"][0]["ops"][0].update(phase="x"),
            "results[0].ops[0].phase = 'x': not one of the allowed values",
        ),
        (  # the campaign's unclear artifacts: msgspec quoted the whole 500-character value
            lambda d: d["results"][0]["ops"][0].update(bound="x" * 500),
            "results[0].ops[0].bound = '" + "x" * 36 + "...: not one of the allowed values",
        ),
        (
            lambda d: d["results"][0]["workload"].update(batch="1"),
            "results[0].workload.batch = '1': not an integer or a list",
        ),
        (lambda d: d["results"][0]["ops"][0].pop("name"), "results[0].ops[0].name: missing"),
        (lambda d: d["results"][0].update(memory={"weights_bytes": 1}), "results[0].memory: kv_cache_bytes: missing"),
    ],
)
def test_wrong_types_are_one_line(tmp_path, good, mutate, message):
    data = json.loads(good)
    mutate(data)
    with pytest.raises(ArtifactError) as info:
        load(tmp_path, data)
    assert str(info.value) == where(tmp_path) + message


def test_sweep_rows_and_operating_point(tmp_path, good):
    data = json.loads(good)
    row = ["decode", 1, 128, 0.001, 1000.0, 1000.0, True, "memory"]
    data["results"][0]["sweep"] = {"columns": COLUMNS, "rows": [row]}
    data["results"][0]["operating_point"] = {"batch": 1, "context": 128}
    load(tmp_path, data)  # well formed: reads
    data["results"][0]["operating_point"] = {"batch": 2, "context": 128}
    with pytest.raises(ArtifactError, match=r"operating_point = \{'batch': 2, 'context': 128\}: not a cell"):
        load(tmp_path, data)
    data["results"][0]["sweep"]["rows"] = [row[:-1]]
    with pytest.raises(ArtifactError, match=r"results\[0\].sweep.rows\[0\]: 7 values under 8 columns$"):
        load(tmp_path, data)
    data["results"][0]["sweep"]["rows"] = [[*row[:3], "fast", *row[4:]]]
    with pytest.raises(ArtifactError, match=r"results\[0\].sweep.rows\[0\].tpot_s = 'fast': not a number$"):
        load(tmp_path, data)


def test_nested_too_deep(tmp_path):
    path = tmp_path / "run.json"
    path.write_text('{"schema": "rooftop.run/1", "x": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(ArtifactError, match=r"run.json: nested deeper than 64 levels$"):
        artifact.load(path)


def test_compare_names_the_bad_file_without_the_force_hint(tmp_path, good, capsys):
    from rooftop.cli.main import main

    data = json.loads(good)
    data["results"][0]["ops"][1]["flops"] = float("inf")
    (tmp_path / "a.json").write_text(good)
    (tmp_path / "b.json").write_text(json.dumps(data))
    with pytest.raises(SystemExit) as info:
        main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    err = capsys.readouterr().err.strip()
    assert info.value.code == 2
    assert (
        err
        == f"rooftop: error: {tmp_path / 'b.json'}: malformed rooftop.run/1 artifact: results[0].ops[1].flops = inf: not a finite number"
    )


def test_a_written_artifact_passes_its_own_schema(good):
    data = json.loads(good)
    doc = convert(data, ArtifactDoc, "run.json", ArtifactError)
    check_sections(data, "run.json", ArtifactError)
    # llama-3.2-1b decode at batch 1: one result; h100-sxm bf16 roof 989.4 TFLOP/s
    assert len(doc.results) == 1 and doc.hardware.compute["bf16"] == 989.4e12


def test_no_compute_roof_reads_and_reports(tmp_path, good):
    # an import without --hardware has no roofs; an edited artifact with none made report fail
    # (IndexError in the efficiency of a timed point): now the efficiency is NaN
    from rooftop.report.html import render_html

    data = json.loads(good)
    data["hardware"]["compute"] = {}
    load(tmp_path, data)
    run = artifact.load(tmp_path / "run.json")
    assert "<html" in render_html([run])
    timed = next(p for p in run.results[0].points if p.time_s and p.flops > 0)
    assert timed.roof_efficiency(run.roofs) != timed.roof_efficiency(run.roofs)  # NaN
