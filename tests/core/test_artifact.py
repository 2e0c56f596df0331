import json

import pytest

from rooftop.api import analyze, workloads_for
from rooftop.core import artifact
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import ArtifactError
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset


@pytest.fixture(scope="module")
def run():
    ws = workloads_for([Phase.DECODE], [1, 64], [2048], [2048], Workload())
    return analyze(load_preset("llama-3.1-8b"), get_roofs("h100-sxm"), ws)


def test_schema_keys(run):
    data = json.loads(artifact.dumps(run))
    assert data["schema"] == "rooftop.run/1"
    hw = data["hardware"]
    assert hw["name"] == "h100-sxm" and hw["compute"]["bf16"] == 989.4e12 and hw["memory"]["hbm"] == 3.35e12
    assert hw["source"]["compute.bf16"].startswith("https://")
    r = data["results"][1]
    assert {"model", "phase", "batch", "prompt", "context", "weight_dtype", "kv_dtype", "tp"} <= set(r["workload"])
    op = r["ops"][2]
    assert {
        "name",
        "count",
        "flops",
        "bytes",
        "weight_bytes",
        "kv_read_bytes",
        "kv_write_bytes",
        "intensity",
        "time_s",
        "bound",
    } <= set(op)
    assert {
        "flops",
        "bytes",
        "weight_bytes",
        "kv_bytes",
        "intensity",
        "time_s",
        "tokens_per_s",
        "mfu",
        "mbu",
        "bound",
    } <= set(r["totals"])
    assert {"weights_bytes", "kv_cache_bytes", "max_batch"} <= set(r["memory"])
    # batch 64 x 2049 tokens x 131,072 B = 17.2 GB of KV read > 16.1 GB of weights: KV-bound
    assert r["findings"][0]["code"] == "decode-kv-bound"
    assert data["results"][0]["findings"][0]["code"] == "decode-weight-bound"
    assert r["workload"]["batch"] == 64


def test_round_trip(run, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(artifact.dumps(run))
    back = artifact.load(path)
    assert back.roofs.peak("bf16") == run.roofs.peak("bf16")
    assert back.results[0].totals == run.results[0].totals
    assert [p.label for p in back.results[0].points] == [p.label for p in run.results[0].points]
    assert back.results[0].points[2].traffic == run.results[0].points[2].traffic
    assert back.results[0].findings == run.results[0].findings


def test_infinite_intensity_is_null(run):
    data = json.loads(artifact.dumps(run))
    softmax = next(o for o in data["results"][0]["ops"] if o["name"] == "softmax")
    assert softmax["intensity"] is None  # flash softmax moves no HBM bytes
    assert softmax["null_reasons"] == {"intensity": "+inf"}  # FLOPs / 0 B


def test_a_timed_only_kernel_has_no_intensity_not_an_infinite_one():
    from rooftop.api.ingest import import_path

    data = json.loads(artifact.dumps(import_path("tests/data/hta-traces/alexnet_a100.json.gz")))
    timed = [o for o in data["results"][0]["ops"] if o["flops"] == 0 and o["bytes"] == 0]
    assert timed and all(o["intensity"] is None and o["null_reasons"] == {"intensity": "nan"} for o in timed)  # 0/0


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("{", "not valid JSON"),
        ('{"schema": "other/2"}', "not a rooftop.run/1"),
        ('{"schema": "rooftop.run/1"}', "malformed"),
    ],
)
def test_bad_artifacts(tmp_path, text, match):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ArtifactError, match=match):
        artifact.load(path)


def test_missing_file(tmp_path):
    with pytest.raises(ArtifactError, match="cannot read"):
        artifact.load(tmp_path / "nope.json")


def test_a_foreign_schema_is_named_in_a_short_line():
    # the fuzz campaign's 26 "unclear" artifacts: a 500-character schema was echoed whole
    import pytest

    from rooftop.core.artifact import run_from_dict
    from rooftop.errors import ArtifactError

    with pytest.raises(ArtifactError) as long_name:
        run_from_dict({"schema": "x" * 500}, "a.json")
    assert str(long_name.value) == "a.json: not a rooftop.run/1 artifact (schema: '" + "x" * 60 + "'… (500 characters))"
    with pytest.raises(ArtifactError) as a_list:
        run_from_dict({"schema": list(range(1000))}, "a.json")
    assert len(str(a_list.value)) < 120


def test_the_platform_is_platform_platform_without_a_subprocess(monkeypatch) -> None:
    import platform
    import subprocess

    from rooftop.core.artifact import host_platform

    expected = platform.platform()

    def refuse(*_a, **_k):
        raise AssertionError("host_platform ran a subprocess (uname -p)")

    monkeypatch.setattr(subprocess, "check_output", refuse)
    monkeypatch.setattr(subprocess, "run", refuse)
    platform._uname_cache = None  # type: ignore[attr-defined]
    assert host_platform() == expected
