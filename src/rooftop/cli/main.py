"""`rooftop` — the command group. Commands load lazily (one module each) so `--help` stays fast.

Typed library errors (RooftopError) become one line on stderr and exit code 2; Ctrl-C becomes
a one-line message and exit code 130. Nothing prints a traceback unless ROOFTOP_DEBUG=1.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from typing import Any

import click

from rooftop import __version__
from rooftop.errors import RooftopError, did_you_mean, one_line, quoted

# command name -> "module:attribute"; a new command is one line here plus its own file.
COMMANDS: dict[str, str] = {
    "analyze": "rooftop.cli.analyze:analyze",
    "bench": "rooftop.cli.bench:bench",
    "hardware": "rooftop.cli.catalog:hardware",
    "import": "rooftop.cli.import_:import_",
    "models": "rooftop.cli.catalog:models",
    "sweep": "rooftop.cli.sweep:sweep_command",
    "report": "rooftop.cli.report:report",
    "compare": "rooftop.cli.compare:compare_command",
    "profile": "rooftop.cli.profile:profile",
    "roofs": "rooftop.cli.roofs:roofs",
    "rules": "rooftop.cli.rules:rules",
    "show": "rooftop.cli.show:show",
    "watch": "rooftop.cli.watch:watch",
}


# Commands whose measurements use every BLAS thread; the others do no linear algebra worth a thread
# pool, and numpy's OpenBLAS starts one per core at import, spinning: 100 ms of CPU of a 0.2 s
# `rooftop import` on 2 cores (benchmarks/bench_cold_start.py). A value the user set is kept.
MEASURING = frozenset({"profile", "roofs"})


class LazyGroup(click.Group):
    """A group whose subcommands import on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        if cmd_name not in MEASURING:
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before the command's module imports numpy
        # numpy first, here, not at the bottom of the command's import chain (every command needs it):
        # imported there, its typing modules made 1,437 calls across a chunk boundary of CPython's
        # frame stack, each one mapping and unmapping a 16 KiB chunk (CPython gh-142183; the fix,
        # gh-145789, is in 3.13 and later, not 3.11 or 3.12): 1,440 page faults, a tenth of the CPU of
        # `rooftop import` on a small trace. Counted with `strace -e trace=mmap`; docs/import.md.
        importlib.import_module("numpy")
        module, attr = target.split(":")
        command: click.Command = getattr(importlib.import_module(module), attr)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in COMMANDS and not ctx.resilient_parsing:
            raise click.UsageError(f"no such command {quoted(name)}{did_you_mean(name, COMMANDS)}", ctx)
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("always")
                warnings.showwarning = _show_warning
                return super().invoke(ctx)
        except RooftopError as exc:
            if os.environ.get("ROOFTOP_DEBUG"):
                raise
            click.echo(f"rooftop: error: {one_line(str(exc))}", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("rooftop: interrupted", err=True)
            ctx.exit(130)


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    click.echo(f"rooftop: warning: {one_line(str(message))}", err=True)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "-V", "--version", prog_name="rooftop")
def cli() -> None:
    """rooftop — a roofline profiler for LLM serving.

    For each transformer operator and phase (prefill, decode) rooftop knows the FLOPs and the
    bytes moved (weights, activations, KV cache), places them under the device's compute and
    bandwidth roofs, reports MFU, HFU, MBU, TTFT and TPOT, and names what binds — with the
    remedy and its side effects.

    \b
    Start here:
      rooftop analyze        # llama-3.1-8b on h100-sxm: prefill and decode
      rooftop analyze --model llama-2-70b --dtype fp16 --phase decode --batch 1
      rooftop hardware list  # the catalog: 31 accelerators, dense datasheet peaks
      rooftop models list    # shipped model presets; or --model ./config.json
      rooftop show run.json  # the tables of a saved run

    \b
    Shell completion (commands, options, model and device names), in ~/.bashrc:
      eval "$(_ROOFTOP_COMPLETE=bash_source rooftop)"    # zsh_source, fish_source
    """


def main(argv: list[str] | None = None) -> None:
    """Run one command (``argv`` or the process's arguments): errors are one line and exit code 2.

    The console script runs it through :func:`rooftop.cli.run` (its garbage-collection settings).
    """
    args = sys.argv[1:] if argv is None else argv
    try:
        code = cli.main(args=args, prog_name="rooftop", standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except click.exceptions.NoArgsIsHelpError as exc:  # bare `rooftop`, or a group without its subcommand
        click.echo(exc.format_message())  # the help, and success
        sys.exit(0)
    except click.UsageError as exc:
        where = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx else ""
        click.echo(f"rooftop: error: {one_line(exc.format_message())}{where}", err=True)
        sys.exit(2)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        click.echo(f"rooftop: error: {one_line(exc.format_message())}", err=True)
        sys.exit(exc.exit_code)
    except (click.Abort, KeyboardInterrupt):
        click.echo("rooftop: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    from rooftop.cli import run

    run()
