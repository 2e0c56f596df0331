"""Every command has help text, appears in the docs, and the CLI maps errors properly (sqlite-utils habit)."""

from pathlib import Path

import pytest

from rooftop.cli.main import COMMANDS
from tests.conftest import REPO, run_cli


def test_top_level_help_lists_commands():
    p = run_cli("--help")
    assert p.returncode == 0
    for name in COMMANDS:
        assert name in p.stdout


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help(name):
    p = run_cli(name, "--help")
    assert p.returncode == 0 and len(p.stdout) > 200


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_is_documented(name):
    docs = (REPO / "docs" / "cli.md").read_text() + (REPO / "README.md").read_text()
    assert f"rooftop {name}" in docs


def test_version():
    p = run_cli("--version")
    assert p.returncode == 0 and "rooftop" in p.stdout


@pytest.mark.parametrize("group", ["models", "hardware"])
def test_a_group_without_its_subcommand_prints_its_help(group):
    # click raises NoArgsIsHelpError (a UsageError): it was flattened into one error line with
    # literal \n sequences; now the help on stdout, exit 0, as bare `rooftop`
    p = run_cli(group)
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout.startswith(f"Usage: rooftop {group} [OPTIONS] COMMAND") and "\\n" not in p.stdout
    assert "Commands:" in p.stdout and "list" in p.stdout


def test_unknown_command_exits_2():
    assert run_cli("frobnicate").returncode == 2


def test_module_entry_point_exists():
    assert (Path(REPO) / "src" / "rooftop" / "__main__.py").exists()


def test_cli_reference_is_current():
    import subprocess
    import sys

    p = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_cli_docs.py"), "--check"], capture_output=True)
    assert p.returncode == 0, "docs/cli.md is stale: run `python scripts/gen_cli_docs.py`"


@pytest.mark.parametrize(("name", "threads"), [("import", "1"), ("watch", "1"), ("roofs", None), ("profile", None)])
def test_only_measuring_commands_start_a_blas_thread_pool(name, threads, monkeypatch):
    # numpy's OpenBLAS spins one thread per core from import: 100 ms of CPU a command that does no
    # linear algebra pays for nothing; `roofs` and `profile` measure with every thread
    import os

    import click

    from rooftop.cli.main import cli

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    cli.get_command(click.Context(cli), name)
    assert os.environ.get("OPENBLAS_NUM_THREADS") == threads
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "8")  # the user's choice stands
    cli.get_command(click.Context(cli), name)
    assert os.environ["OPENBLAS_NUM_THREADS"] == "8"


def test_the_entry_point_imports_no_numpy_before_the_command_is_chosen():
    import subprocess
    import sys

    code = "import sys, rooftop.cli.main; print('numpy' in sys.modules)"
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(REPO / "src")}
    )
    assert p.stdout.strip() == "False"  # else OPENBLAS_NUM_THREADS would come too late


def test_the_json_encoder_loads_msgspec_only_when_it_encodes():
    # `rooftop watch --help` imports the encoder for its --json option; msgspec (~12 ms with the
    # decimal module it pulls in) waits until something is written
    import subprocess
    import sys

    code = "import sys, rooftop.core.jsonenc as j; a = 'msgspec' in sys.modules; j.dumps({}); print(a, 'msgspec' in sys.modules)"
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(REPO / "src")}
    )
    assert p.stdout.strip() == "False True", p.stderr


def test_the_console_script_runs_a_command_under_the_raised_threshold(monkeypatch):
    # a 0.17 s `rooftop import` paid ~70 young collections (8 ms) at the default threshold of 700
    import gc

    import rooftop.cli.main
    from rooftop.cli import run

    seen = []
    monkeypatch.setattr(rooftop.cli.main, "main", lambda: seen.append(gc.get_threshold()[0]))
    monkeypatch.setattr(gc, "freeze", lambda: seen.append("frozen"))  # the test process lives on
    before = gc.get_threshold()
    run()
    assert seen == [50_000, "frozen"] and gc.get_threshold() == before


def test_the_console_script_is_cli_run():
    import tomllib

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"rooftop": "rooftop.cli:run"}
    assert (REPO / "src" / "rooftop" / "__main__.py").read_text().endswith("from rooftop.cli import run\n\nrun()\n")


def _command_paths() -> list[tuple[str, ...]]:
    import click

    from rooftop.cli.main import cli

    ctx = click.Context(cli)
    paths: list[tuple[str, ...]] = [()]
    for name in sorted(COMMANDS):
        command = cli.get_command(ctx, name)
        paths.append((name,))
        if isinstance(command, click.Group):
            paths += [(name, sub) for sub in command.list_commands(ctx)]
    return paths


def test_every_help_fits_80_columns():
    # an 80-column terminal: click wraps the prose and the options, but the examples (\b blocks)
    # and a long choice list are printed as written; issue 10's standard is every output at 80
    from click.testing import CliRunner

    from rooftop.cli.main import cli

    runner = CliRunner()
    wide = {}
    for path in _command_paths():
        result = runner.invoke(cli, [*path, "--help"], env={"COLUMNS": "80"})
        assert result.exit_code == 0, (path, result.output)
        lines = [line for line in result.output.splitlines() if len(line) > 80]
        if lines:
            wide[" ".join(path) or "rooftop"] = lines
    assert not wide, "\n".join(f"{k}: {len(v)} lines over 80, e.g. {v[0]!r}" for k, v in wide.items())
