"""`rooftop show`: a saved artifact printed as the command that wrote it printed it."""

from __future__ import annotations

from click.testing import CliRunner

from rooftop.cli.main import cli
from rooftop.cli.show import renderer
from rooftop.core import artifact
from rooftop.report.profile import render_profile
from rooftop.report.tables import render_run
from tests.conftest import data_path


def test_show_renders_a_saved_profile_as_profile_does():
    run = artifact.load(data_path("output", "profile-tiny.json"))
    assert renderer(run) is render_profile
    out = CliRunner().invoke(cli, ["show", str(data_path("output", "profile-tiny.json"))], env={"COLUMNS": "100"})
    assert out.exit_code == 0 and "measured vs analytic · tiny · prefill" in out.stdout


def test_show_two_analyze_runs_names_each_file(tmp_path):
    runner = CliRunner()
    for name in ("a.json", "b.json"):
        assert (
            runner.invoke(cli, ["analyze", "--phase", "decode", "-b", "1", "-q", "-o", str(tmp_path / name)]).exit_code
            == 0
        )
    assert renderer(artifact.load(tmp_path / "a.json")) is render_run
    out = runner.invoke(cli, ["show", str(tmp_path / "a.json"), str(tmp_path / "b.json")], env={"COLUMNS": "200"})
    assert out.exit_code == 0
    assert (
        out.stdout.count("time per output token  4.56 ms") == 2
        and f"== {tmp_path / 'b.json'} (analyze) ==" in out.stdout
    )


def test_show_refuses_a_non_artifact(tmp_path):
    (tmp_path / "x.json").write_text('{"schema": "other"}')
    out = CliRunner().invoke(cli, ["show", str(tmp_path / "x.json")])
    assert out.exit_code == 2 and "not a rooftop.run/1 artifact (schema: 'other')" in out.stderr


def test_show_a_watch_artifact_as_live_points(tmp_path):
    from rooftop.report.tables import render_points_run

    prom = data_path("serving", "vllm_cpu_0.32_live.prom")
    runner = CliRunner()
    args = ["watch", str(prom), "--once", "-m", "llama-3.2-1b", "--dtype", "fp32", "-o", str(tmp_path / "w.json")]
    assert runner.invoke(cli, args).exit_code == 0
    assert renderer(artifact.load(tmp_path / "w.json")) is render_points_run
    out = runner.invoke(cli, ["show", str(tmp_path / "w.json")], env={"COLUMNS": "80"})
    assert out.exit_code == 0, out.output
    assert "live prefill" in out.stdout and "None" not in out.stdout and "nan" not in out.stdout
