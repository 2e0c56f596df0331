"""Golden terminal output at 80 and 120 columns and piped, for every command that prints a run (issue 10).

Each case runs the real command in-process (CliRunner: stdout is not a terminal, so without COLUMNS
the output is laid out for a file) and compares it with tests/data/output/golden/<case>-<width>.txt.
Every golden output is also checked cell by cell: no number cut with '…', no number on one line and
its unit on the next, no line wider than the terminal. Regenerate after a deliberate change with
ROOFTOP_REGEN_GOLDEN=1 and read the diff.
"""

from __future__ import annotations

import io
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from rooftop.cli.main import cli
from tests.conftest import REPO, data_path

DATA = REPO / "tests" / "data" / "output"
GOLDEN = DATA / "golden"
WIDTHS = {"80": "80", "120": "120", "piped": None}

# a unit as rooftop prints it after a number (si(), seconds(), gib(), shares)
UNIT = r"(?:[PTGMk](?:FLOP/s|FLOP/B|FLOP|B/s|B)?|FLOP/s|FLOP/B|FLOP|B/s|B|[KMGT]iB|ms|µs|ns|s|%|×|tok/s|req/s)"
NUMBER = r"[-+]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?"


def cut_cells(text: str, width: int | None = None) -> list[str]:
    """Every place where a number or unit is cut or split, or a line overflows ``width``."""
    problems = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.search(r"\d…|…\s*" + UNIT + r"(?!\w)", line):
            problems.append(f"line {i + 1}: a number cut with '…': {line!r}")
        if re.search(r"(?<![\w.])\d+\.$", line.rstrip()):
            problems.append(f"line {i + 1}: a decimal number split at its point: {line!r}")
        if re.search(r"(?<![\w#])\d+(?:\.\d+)?e[+-]\d+", line):
            problems.append(f"line {i + 1}: a number in exponent notation: {line!r}")
        if line != line.rstrip():
            problems.append(f"line {i + 1}: ends in blanks (a table padded to its width): {line!r}")
        if width is not None and len(line) > width:
            problems.append(f"line {i + 1}: {len(line)} columns > {width}: {line!r}")
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if re.search(NUMBER + r"$", line.rstrip()) and re.match(UNIT + r"(?![\w/])", nxt):
            problems.append(f"line {i + 1}: a number and its unit on two lines: {line.strip()!r} / {nxt!r}")
    return problems


def test_checker_finds_the_old_faults() -> None:
    # the examples: headers and numbers cut with '…', '1.07' and 'G' on two lines, '179' / 'ms'
    assert cut_cells("│ attn_…  32  164…  memor… │", 80)
    assert cut_cells("q_proj  32   1.07\n              G", 80)
    assert cut_cells("46 kernel names, 78,016 instances, 179\nms", 80)
    assert cut_cells("x" * 81, 80)
    assert cut_cells("q_proj  2.2 T  1.02e+03  2.22 ms")  # issue 10: `6.209e+04`, `largest gap 1.09e+04 ms`
    assert not cut_cells("q_proj  1.07 G  1.07 GB  321 µs  7.0%  memory:weights", 80)


def _run(args: list[str], width: str | None, cwd: Path | None = None) -> str:
    env = {"COLUMNS": width} if width else {"COLUMNS": ""}
    here = os.getcwd()
    try:
        if cwd:
            os.chdir(cwd)
        result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output
    return result.stdout


def _artifacts(tmp: Path) -> Path:
    """before.json / after.json (KV in fp8) and the saved profile, in ``tmp``."""
    for name, extra in (("before.json", []), ("after.json", ["--kv-dtype", "fp8"])):
        _run(["analyze", "--phase", "decode", "-b", "1,64", "-q", "-o", str(tmp / name), *extra], "80")
    shutil.copy(DATA / "profile-tiny.json", tmp / "profile-tiny.json")
    return tmp


CASES: dict[str, list[str]] = {
    "analyze": ["analyze", "--phase", "decode", "-b", "1"],
    "analyze-both": ["analyze", "-b", "1,64"],
    "profile": ["show", "profile-tiny.json"],
    "sweep": ["sweep", "-b", "1-64", "-c", "2048,8192", "--slo-tpot", "50ms"],
    "compare": ["compare", "before.json", "after.json"],
    "import-kineto": ["import", "sampled_rank-0.json.gz", "-H", "a100-80gb-sxm", "--top", "8"],
    "import-ncu": ["import", "kernel_0001.ncu.metrics.csv", "-H", "h100-sxm"],
    "import-nsys": ["import", "decode_cuda_gpu_kern_sum.csv"],
    "watch-once": ["watch", "vllm_cpu_0.32_live.prom", "--once", "-m", "llama-3.2-1b", "--dtype", "fp32"],
}
FIXTURES = {
    "import-kineto": ("hta-traces", "sampled_rank-0.json.gz"),
    "import-ncu": ("ncu-csv-llm-perf-opt", "kernel_0001.ncu.metrics.csv"),
    "import-nsys": ("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv"),
    "watch-once": ("serving", "vllm_cpu_0.32_live.prom"),
}


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("case", list(CASES))
def test_golden_output(case: str, width: str, tmp_path: Path) -> None:
    cwd = _artifacts(tmp_path) if case in ("profile", "compare") else None
    if case in FIXTURES:
        cwd = data_path(*FIXTURES[case]).parent
    text = _run(CASES[case], WIDTHS[width], cwd)
    columns = int(WIDTHS[width]) if WIDTHS[width] else None
    assert not cut_cells(text, columns), "\n".join(cut_cells(text, columns))
    golden = GOLDEN / f"{case}-{width}.txt"
    if os.environ.get("ROOFTOP_REGEN_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("width", list(WIDTHS))
def test_golden_bench_output(width: str) -> None:
    # a bench run's numbers change run to run: the golden output renders a saved `bench --json` document
    # (two levels against the stub server) through the same renderer the command uses
    import json

    from rich.console import Console

    from rooftop.cli.bench_output import render_bench
    from rooftop.report.layout import FILE_WIDTH

    doc = json.loads((DATA / "bench-stub.json").read_text(encoding="utf-8"))
    columns = int(WIDTHS[width]) if WIDTHS[width] else None
    console = Console(record=True, width=columns or FILE_WIDTH, file=io.StringIO())
    render_bench(doc["runs"], doc, console)
    text = console.export_text()
    assert not cut_cells(text, columns), "\n".join(cut_cells(text, columns))
    golden = GOLDEN / f"bench-{width}.txt"
    if os.environ.get("ROOFTOP_REGEN_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_piped_output_is_not_squeezed() -> None:
    # issue 10: without COLUMNS a pipe got 80 columns, merged KV columns and wrapped findings;
    # piped, the widest layout is used (KV read and KV write apart, the count column kept)
    text = _run(CASES["analyze"], None)
    header = next(line for line in text.splitlines() if line.startswith("op "))
    assert header.split()[:3] == ["op", "×", "FLOPs"] and "KV write" in header
    narrow = _run(CASES["analyze"], "80")
    assert "KV write" not in narrow and max(len(line) for line in narrow.splitlines()) <= 80


def test_golden_files_are_checked_cell_by_cell() -> None:
    # the acceptance check over the stored files themselves (each width's limit)
    files = sorted(GOLDEN.glob("*.txt"))
    assert len(files) >= 3 * 10  # analyze ×2, profile, sweep, compare, import ×3, watch --once, bench
    for path in files:
        width = path.stem.rsplit("-", 1)[1]
        assert not cut_cells(path.read_text(encoding="utf-8"), int(width) if width.isdigit() else None), path.name
