"""JSON on stdout is always valid JSON (issue 11): no NaN or Infinity (null, via core.jsonenc)."""

from __future__ import annotations

import json

import pytest

from rooftop.cli.main import main


def test_compare_json_has_no_infinity(capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    main(["analyze", "-m", "llama-3.2-1b", "--phase", "decode", "-b", "1", "-o", "run.json"])
    capsys.readouterr()
    main(["compare", "run.json", "run.json", "--json"])
    out = capsys.readouterr().out
    assert "Infinity" not in out and "NaN" not in out
    doc = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    softmax = next(o for o in doc["results"][0]["ops"] if o["name"] == "softmax")
    assert softmax["intensity"] == {"before": None, "after": None}
    art = json.loads((tmp_path / "run.json").read_text())
    op = next(o for o in art["results"][0]["ops"] if o["name"] == "softmax")
    assert op["bytes"] == 0 and op["intensity"] is None  # FLOP / 0 B is infinite: written as null
