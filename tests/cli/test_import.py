"""`rooftop import` end to end (real subprocess)."""

from __future__ import annotations

import json

from tests.conftest import fixture_path, run_cli


def test_trace_json_has_the_documented_keys() -> None:
    proc = run_cli("import", str(fixture_path("hta-traces", "sampled_rank-0.json.gz")), "-H", "a100-80gb-sxm", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["schema"] == "rooftop.run/1" and data["hardware"]["name"] == "a100-80gb-sxm"
    tl = data["results"][0]["timeline"]
    assert tl["kernels"] == 1154 and round(tl["busy_s"] * 1e6) == 547_303
    assert tl["largest_gap_start_us"] == 1682725899072204
    assert data["results"][0]["steps"]["steps"][-1]["last"] is True


def test_ncu_points_per_kernel_and_level() -> None:
    proc = run_cli("import", str(fixture_path("ncu-csv-olajide-gpu-roofline-profiler", "saxpy.csv")), "--json")
    assert proc.returncode == 0, proc.stderr
    (op,) = json.loads(proc.stdout)["results"][0]["ops"]
    assert (op["source"], op["level"], op["bytes"]) == ("ncu", "hbm", 177_852_672)
    assert abs(op["time_s"] - 292.928e-6) < 1e-12 and op["flops"] == 0


def test_tables_and_findings() -> None:
    proc = run_cli("import", str(fixture_path("hta-traces", "alexnet_a100.json.gz")), "-H", "a100-80gb-sxm")
    assert proc.returncode == 0, proc.stderr
    assert "span / busy / idle" in proc.stdout and "GPU idle" in proc.stdout


def test_help_teaches() -> None:
    proc = run_cli("import", "--help")
    assert proc.returncode == 0 and "Examples:" in proc.stdout and "--page raw" in proc.stdout


def test_unknown_hardware_is_one_line() -> None:
    proc = run_cli("import", str(fixture_path("hta-traces", "triton_example.json.gz")), "-H", "a100")
    assert proc.returncode == 2 and proc.stderr.startswith("rooftop: error: unknown hardware")
