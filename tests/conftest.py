"""Shared test helpers: where the fixtures are, and running the real CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"


def shared_dir() -> Path:
    """../shared beside the checkout (CI lays a copy there); ROOFTOP_SHARED overrides."""
    return Path(os.environ.get("ROOFTOP_SHARED", REPO.parent / "shared"))


def fixture_path(*parts: str) -> Path:
    """A file under ../shared/fixtures/; the test is skipped with a reason when it is absent."""
    path = shared_dir().joinpath("fixtures", *parts)
    if not path.exists():
        pytest.skip(f"fixture not found: {path}")
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
