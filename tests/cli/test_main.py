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


def test_unknown_command_exits_2():
    assert run_cli("frobnicate").returncode == 2


def test_module_entry_point_exists():
    assert (Path(REPO) / "src" / "rooftop" / "__main__.py").exists()


def test_cli_reference_is_current():
    import subprocess
    import sys

    p = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_cli_docs.py"), "--check"], capture_output=True)
    assert p.returncode == 0, "docs/cli.md is stale: run `python scripts/gen_cli_docs.py`"
