"""CLI: sweep, report, compare, and --report/--plot on analyze; bad input is one line and exit 2."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

pytest.importorskip("plotly")
pytest.importorskip("matplotlib")


def _error_line(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("rooftop: error: ")
    return lines[0]


def test_analyze_takes_report_and_plot(tmp_path: Path) -> None:
    report, plot = tmp_path / "r.html", tmp_path / "r.png"
    proc = run_cli("analyze", "--phase", "decode", "--batch", "1,64", "--report", str(report), "--plot", str(plot))
    assert proc.returncode == 0, proc.stderr
    assert report.read_text().startswith("<!DOCTYPE html>") and plot.read_bytes()[:4] == b"\x89PNG"
    assert "Traceback" not in proc.stderr and "time per output token" in proc.stdout  # files never hide tables
    quiet = run_cli("analyze", "--phase", "decode", "--report", str(report), "--quiet")
    assert quiet.returncode == 0 and quiet.stdout == "" and "wrote" in quiet.stderr


def test_sweep_acceptance_json_and_csv(tmp_path: Path) -> None:
    cells = tmp_path / "cells.csv"
    proc = run_cli(
        "sweep",
        "--prompt",
        "2048",
        "--output-tokens",
        "256",
        "--slo-tpot",
        "50ms",
        "--dtype",
        "bf16",
        "--csv",
        str(cells),
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)
    result = run["results"][0]
    assert result["operating_point"] == {"batch": 128, "context": 2304}
    findings = {f["code"]: f for f in result["findings"]}
    assert findings["sweep-kv-admission"]["evidence"]["max_batch_by_context"] == {"2304": 202}
    assert findings["sweep-operating-point"]["evidence"]["tpot_s"] <= 0.050
    rows = list(csv.DictReader(cells.open()))
    assert len(rows) == 10  # --batch 1-512: 1, 2, 4 ... 512 at one context
    assert rows[7]["batch"] == "128" and rows[7]["slo_met"] == "True"


def test_sweep_table_and_report(tmp_path: Path) -> None:
    report = tmp_path / "s.html"
    proc = run_cli("sweep", "-b", "1,64,512", "-c", "512,8192", "--slo-tpot", "50ms")
    assert proc.returncode == 0 and "Operating point" in proc.stdout
    proc = run_cli("sweep", "-b", "1,64", "--slo-ttft", "500ms", "--report", str(report))
    assert proc.returncode == 0 and "sweep-0-heatmap-0" in report.read_text()


def test_report_and_compare_from_artifacts(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    assert run_cli("analyze", "-o", str(a)).returncode == 0
    assert run_cli("analyze", "--kv-dtype", "fp8", "-o", str(b)).returncode == 0
    assert run_cli("analyze", "-m", "llama-2-7b", "-o", str(c)).returncode == 0
    out = tmp_path / "both.html"
    proc = run_cli("report", str(a), str(b), "-o", str(out), "--plot", str(tmp_path / "both.svg"))
    assert proc.returncode == 0, proc.stderr
    assert out.exists() and (tmp_path / "both.svg").exists()
    proc = run_cli("compare", str(a), str(b), "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["schema"] == "rooftop.compare/1"
    proc = run_cli("compare", str(a), str(c))
    assert proc.returncode == 2
    assert "different models" in _error_line(proc.stderr) and "--force" in proc.stderr
    assert run_cli("compare", str(a), str(c), "--force").returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sweep", "--slo-tpot", "50"], "needs a unit"),
        (["sweep", "--cohort", "2048"], "PROMPT:OUTPUT"),
        (["sweep", "--shared-prefix", "4096", "--prompt", "2048"], "cached_prefix"),
        (["analyze", "--plot", "x.jpg"], ".png or .svg"),
        (["report", "missing.json", "-o", "x.html"], "cannot read"),
    ],
)
def test_bad_input_is_one_line_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert message in _error_line(proc.stderr)


@pytest.mark.parametrize(("value", "message"), [("", "is empty"), ("64-1", "inverted")])
def test_bad_grids_exit_2(value: str, message: str) -> None:
    proc = run_cli("sweep", "--batch", value)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
