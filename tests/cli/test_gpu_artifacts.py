"""The artifact and roofs rooftop wrote on an H200 read back through `show` and `report`.

tests/data/gpu/README.md says how they were made. The numbers are the device's, recorded once.
"""

import json

from tests.conftest import data_path, run_cli

PROFILE = data_path("gpu", "profile-llama-3.2-1b-h200.json")


def test_the_h200_profile_met_the_checks_it_was_run_for():
    # issue 15: matmul FLOPs from shapes equal FlopCounterMode's and >= 90 % of every step accounted
    results = json.loads(PROFILE.read_text())["results"]
    assert [(r["workload"]["phase"], r["workload"]["batch"]) for r in results] == [
        ("prefill", 1), ("decode", 1), ("prefill", 16), ("decode", 16)
    ]  # fmt: skip
    assert all(r["profile"]["flop_counter_ratio"] == 1.0 for r in results)
    assert all(r["profile"]["accounted_share"] >= 0.9 for r in results)
    # decode at batch 16 appends to 2,048..2,063 cached tokens: 16 steps of 32 · 2 · (n+1) · 16,384 B
    kv = results[3]["profile"]["kv_append_bytes"]
    assert kv == sum(32 * 2 * (2049 + i) * 16_384 for i in range(16)) / 16


def test_show_renders_it_in_80_columns():
    p = run_cli("show", str(PROFILE), env={"COLUMNS": "80"})
    assert p.returncode == 0, p.stderr
    assert "cuda:NVIDIA H200" in p.stdout and p.stdout.count("1.0000 × FlopCounterMode's") == 4
    assert max(len(line) for line in p.stdout.splitlines()) <= 80


def test_report_draws_it(tmp_path):
    out = tmp_path / "h200.html"
    p = run_cli("report", str(PROFILE), "-o", str(out))
    assert p.returncode == 0, p.stderr
    html = out.read_text()
    assert "NVIDIA H200" in html and "llama-3.2-1b" in html
