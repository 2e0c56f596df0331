"""`rooftop rules`: the file it writes, the dashboard, and one-line errors with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.conftest import run_cli


def test_writes_rules_and_dashboard(tmp_path: Path) -> None:
    out, dash = tmp_path / "r.yml", tmp_path / "d.json"
    proc = run_cli("rules", "-m", "llama-3.1-8b", "--engine", "sglang", "-o", str(out), "--dashboard", str(dash))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    groups = yaml.safe_load(out.read_text())["groups"]
    assert [g["name"] for g in groups] == [
        "rooftop:llama-3.1-8b:h100-sxm:sglang:record",
        "rooftop:llama-3.1-8b:h100-sxm:sglang:alerts",
    ]
    assert any("sglang:prompt_tokens_total" in r["expr"] for r in groups[0]["rules"])
    board = json.loads(dash.read_text())
    exprs = [t["expr"] for p in board["panels"] for t in p["targets"]]
    assert any(e.startswith("rooftop:mfu{") for e in exprs) and all("rooftop:" in e for e in exprs)
    assert {v["name"] for v in board["templating"]["list"]} == {"datasource", "model", "device", "instance"}


def test_stdout_options_and_lines_fit_a_terminal() -> None:
    proc = run_cli("rules", "-m", "llama-3.1-8b", "--window", "30s", "--for", "5m", "--interval", "15s")
    assert proc.returncode == 0, proc.stderr
    doc = yaml.safe_load(proc.stdout)
    assert all(g["interval"] == "15s" for g in doc["groups"])
    assert doc["groups"][0]["rules"][0]["expr"].endswith("offset 30s) >= 0) or vllm:prompt_tokens_total)) / 30.0")
    assert {a["for"] for a in doc["groups"][1]["rules"]} == {"5m"}
    long = [ln for ln in proc.stdout.splitlines() if len(ln) > 100]
    assert not long, long[:3]


def test_bad_input_is_one_line_exit_2() -> None:
    for args, words in (
        (("--window", "1x"), "--window '1x': not a Prometheus duration"),
        (("-m", "no-such-model"), "no-such-model"),
        (("-H", "no-such-device"), "no-such-device"),
        (("--selector", '{job="x"}'), "without braces"),
    ):
        full = ("rules", *args) if args[0] == "-m" else ("rules", "-m", "llama-3.1-8b", *args)
        proc = run_cli(*full)
        assert proc.returncode == 2, (args, proc.stderr)
        assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
