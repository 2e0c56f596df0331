"""End-to-end: the real CLI on a tiny random-weight Llama (seconds), with roofs pre-seeded in a temp cache."""

import json

import pytest

from rooftop.measure.attribution import STEP
from tests.conftest import run_cli
from tests.measure.tiny import TINY, seed

pytest.importorskip("torch")
pytest.importorskip("transformers")


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("ROOFTOP_CACHE_DIR", str(tmp_path / "cache"))
    seed(tmp_path)
    return {"ROOFTOP_CACHE_DIR": str(tmp_path / "cache")}, tmp_path


@pytest.mark.slow  # the real profiler, then the default calibration sweep: ~10 s on 2 cores
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
    assert "calibration from a profile" in shown.stdout and "decode model on" in shown.stdout


def test_table_output_names_measured_and_analytic(env):
    e, tmp = env
    out = run_cli(
        "profile", "-m", str(tmp / "tiny"), "-p", "16", "--steps", "1", "--trace", str(tmp / "t.json.gz"),
        "--no-calibrate", env=e,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "measured vs analytic" in out.stdout and "FlopCounterMode" in out.stdout


@pytest.mark.parametrize(
    ("args", "trace"),
    [
        ([], "cache/rooftop-trace.json.gz"),  # nothing else asked: the cache folder
        (["-o", "{tmp}/out/run.json"], "out/run-trace.json.gz"),  # beside the artifact, named after it
    ],
)
def test_trace_goes_beside_the_outputs_or_into_the_cache_never_the_working_directory(env, args, trace):
    e, tmp = env
    cwd, out_dir = tmp / "cwd", tmp / "out"
    cwd.mkdir()
    out_dir.mkdir()
    args = [a.format(tmp=tmp) for a in args]
    out = run_cli(
        "profile", "-m", str(tmp / "tiny"), "-p", "16", "--steps", "1", "--no-calibrate", *args, env=e, cwd=cwd
    )
    assert out.returncode == 0, out.stderr
    assert list(cwd.iterdir()) == []
    assert (tmp / trace).is_file()
    assert f"wrote {tmp / trace} (torch trace)" in out.stderr


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


def ctrl_c_inside(monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    """Ctrl-C in the decode that runs inside the profiled step range ``step`` (e.g. ``decode::1``).

    It keys on the range the profiler records, not on how many decodes the warm-up and the FLOP
    check ran before it.
    """
    import torch

    from rooftop.measure import profile as measure_profile

    open_steps: list[str] = []
    real_range, real_decode = torch.profiler.record_function, measure_profile.Stepper.decode

    class tracked(real_range):
        def __enter__(self):
            if self.name.startswith(STEP):
                open_steps.append(self.name)
            return super().__enter__()

        def __exit__(self, *exc):
            if self.name in open_steps:
                open_steps.remove(self.name)
            return super().__exit__(*exc)

    def decode(self):
        if STEP + step in open_steps:
            raise KeyboardInterrupt
        real_decode(self)

    monkeypatch.setattr(torch.profiler, "record_function", tracked)
    monkeypatch.setattr(measure_profile.Stepper, "decode", decode)


def test_ctrl_c_mid_profile_keeps_the_whole_steps_stores_nothing_and_exits_130(env, monkeypatch):
    """Ctrl-C in the 2nd profiled decode step, in-process (a subprocess cannot be interrupted at a chosen step).

    Through every layer: measure keeps the whole steps and the trace, api stores no calibration from
    a cut profile, the CLI reports what was measured and exits 130.
    """
    from click.testing import CliRunner

    from rooftop.cli.main import cli
    from rooftop.measure import cache

    _, tmp = env
    ctrl_c_inside(monkeypatch, "decode::1")
    args = ["profile", "-m", str(tmp / "tiny"), "-p", "16", "--steps", "3", "--trace", str(tmp / "t.json"), "--json"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 130
    run = json.loads(out.stdout)
    assert run["identity"]["interrupted"] is True
    assert [r["workload"]["phase"] for r in run["results"]] == ["prefill", "decode"]
    assert [r["profile"]["steps"] for r in run["results"]] == [1, 1]  # the prefill and the one whole decode step
    assert run["results"][1]["profile"]["interrupted"]
    assert "rooftop: interrupted: reported the 2 step(s) measured before Ctrl-C" in out.stderr
    # the step Ctrl-C cut short stays in the saved trace but is not reported as a step
    assert f"{STEP}decode::1" in (tmp / "t.json").read_text()
    assert cache.load_calibration("cpu", 1) is None


def test_ctrl_c_during_calibration_reports_the_profile_and_exits_130(env, monkeypatch):
    from click.testing import CliRunner

    from rooftop.cli.main import cli
    from rooftop.measure import sweep

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep, "time_shape", interrupted)
    _, tmp = env
    args = ["profile", "-m", str(tmp / "tiny"), "-p", "16", "--steps", "2", "--trace", str(tmp / "t.json"), "--json"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 130
    assert json.loads(out.stdout)["identity"]["calibration"] == "interrupted: nothing stored"
    assert "rooftop: interrupted during calibration: the profile is reported, no calibration stored" in out.stderr


def test_batches_and_context(env):
    # -b 1,2: one profile per batch (one trace each); -c 40: decode on a 40-token cache filled by an
    # unprofiled prefill, so the analytic decode workload sits at context 40 (+ steps // 2 = 0 for one step)
    e, tmp = env
    out = run_cli(
        "profile",
        "-m",
        str(tmp / "tiny"),
        "-p",
        "16",
        "-c",
        "40",
        "-b",
        "1,2",
        "--steps",
        "1",
        "--no-calibrate",
        "--trace",
        str(tmp / "t.json.gz"),
        "--json",
        env=e,
    )
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout)
    shapes = [(r["workload"]["phase"], r["workload"]["batch"], r["workload"]["context"]) for r in run["results"]]
    assert shapes == [("prefill", 1, 16), ("decode", 1, 40), ("prefill", 2, 16), ("decode", 2, 40)]
    assert run["identity"]["batches"] == [1, 2]
    assert (tmp / "t-b1.json.gz").exists() and (tmp / "t-b2.json.gz").exists()
    decode = run["results"][1]
    assert decode["profile"]["steps"] == 1 and decode["profile"]["accounted_share"] >= 0.9
