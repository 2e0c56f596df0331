"""Regenerate docs/cli.md from the commands' --help (run after changing any command).

.venv/bin/python scripts/gen_cli_docs.py            # rewrite docs/cli.md
.venv/bin/python scripts/gen_cli_docs.py --check    # exit 1 if docs/cli.md is stale (tests run this)
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from click.testing import CliRunner

from rooftop.cli.main import cli

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def _walk(group: click.Group, prefix: list[str]) -> list[list[str]]:
    ctx = click.Context(group)
    paths = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        paths.append([*prefix, name])
        if isinstance(command, click.Group):
            paths.extend(_walk(command, [*prefix, name]))
    return paths


def render() -> str:
    """The whole reference as Markdown."""
    runner = CliRunner()
    parts = ["# CLI reference\n", "Generated from `--help` by `scripts/gen_cli_docs.py`; do not edit by hand.\n"]
    for path in [[], *_walk(cli, [])]:
        result = runner.invoke(cli, [*path, "--help"], prog_name="rooftop", terminal_width=100)
        title = " ".join(["rooftop", *path])
        parts.append(f"## {title}\n\n```\n{result.output.rstrip()}\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    text = render()
    if "--check" in sys.argv:
        sys.exit(0 if DOC.exists() and DOC.read_text() == text else 1)
    DOC.write_text(text)
    print(f"wrote {DOC}")
