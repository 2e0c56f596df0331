"""End-to-end: the real CLI on a tiny random-weight Llama (seconds), with roofs pre-seeded in a temp cache."""

import json

import pytest

from rooftop.core.roofs import ComputeRoof, MemoryRoof, RoofKind, Roofs
from tests.conftest import run_cli

pytest.importorskip("torch")
pytest.importorskip("transformers")

TINY = {
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "vocab_size": 256,
    "max_position_embeddings": 128,
    "tie_word_embeddings": False,
}


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFTOP_CACHE_DIR", str(tmp_path / "cache"))
    from rooftop.measure import cache

    roofs = Roofs(
        "cpu:test",
        (ComputeRoof("fp32", 90e9, RoofKind.MEASURED, "seeded by the test"),),
        (MemoryRoof("hbm", 20e9, RoofKind.MEASURED, "seeded by the test"),),
        capacity_bytes=8 * 2**30,
        identity={"spread": {"compute.fp32": 0.05, "memory.hbm": 0.05}},
    )
    cache.save_roofs(roofs, "cpu", 1)
    (tmp_path / "tiny").mkdir()
    (tmp_path / "tiny" / "config.json").write_text(json.dumps(TINY))
    return {"ROOFTOP_CACHE_DIR": str(tmp_path / "cache")}, tmp_path


def test_profile_tiny_model_end_to_end(env):
    e, tmp = env
    out = run_cli(
        "profile",
        "-m",
        str(tmp / "tiny"),
        "-p",
        "16",
        "--steps",
        "2",
        "--trace",
        str(tmp / "t.json.gz"),
        "--json",
        env=e,
    )
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout)
    assert run["command"] == "profile" and run["identity"]["threads"] == 1
    phases = [r["workload"]["phase"] for r in run["results"]]
    assert phases == ["prefill", "decode"]
    for r in run["results"]:
        assert {op["source"] for op in r["ops"]} == {"measured", "analytic"}
        assert r["profile"]["flop_counter_ratio"] == pytest.approx(1.0, abs=1e-3)
        assert r["profile"]["accounted_share"] >= 0.9
    assert (tmp / "t.json.gz").exists()
    shown = run_cli("roofs", "show", env=e)
    assert "calibration from a profile" in shown.stdout


def test_table_output_names_measured_and_analytic(env):
    e, tmp = env
    out = run_cli(
        "profile", "-m", str(tmp / "tiny"), "-p", "16", "--steps", "1", "--trace", str(tmp / "t.json.gz"), env=e
    )
    assert out.returncode == 0, out.stderr
    assert "measured vs analytic" in out.stdout and "FlopCounterMode" in out.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--device", "tpu"], "unknown device 'tpu'"),
        (["-m", "llama-3.1-405b", "-b", "64", "-p", "8192"], "GiB usable"),
    ],
)
def test_bad_input_is_one_line(env, args, message):
    e, _ = env
    out = run_cli("profile", *args, env=e)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr


def test_config_transformers_cannot_build(env):
    e, tmp = env
    (tmp / "bad").mkdir()
    (tmp / "bad" / "config.json").write_text(json.dumps({**TINY, "model_type": "no-such-arch"}))
    out = run_cli("profile", "-m", str(tmp / "bad"), env=e)
    assert out.returncode == 2
    assert "rooftop: error:" in out.stderr and "Traceback" not in out.stderr
