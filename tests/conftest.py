"""Shared test helpers: where the test data is, and running the real CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
DATA = REPO / "tests" / "data"


def data_path(*parts: str) -> Path:
    """A file or folder under tests/data/; a missing one fails the test (the data travels with the repository)."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"test data missing: {path} (tests/data/README.md lists every file)", pytrace=False)
    return path


def run_cli(
    *args: str,
    input: str | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `python -m rooftop ARGS` against this checkout's src/; returns the completed process."""
    full_env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200", **(env or {})}
    full_env.pop("ROOFTOP_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "rooftop", *args],
        capture_output=True,
        text=True,
        input=input,
        timeout=timeout,
        env=full_env,
        cwd=cwd,
    )


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Run the CLI in this process; returns (exit code, stderr)."""
    from rooftop.cli.main import main

    try:
        main(list(argv))
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    return (code if isinstance(code, int) else 1), capsys.readouterr().err
