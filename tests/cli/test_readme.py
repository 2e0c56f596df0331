"""Every README example that needs no server, GPU or torch runs as printed (issue 10).

The README's ```bash blocks are read in order; each `rooftop ...` line (continuations joined,
comments dropped) runs in one temp folder that holds the example inputs under the README's names
(trace.json.gz, ncu.csv, nsys_cuda_gpu_kern_sum.csv: copies of the test fixtures; report_cuda_gpu_trace.csv:
the real rows of tests/ingest/test_nsys_trace.py).
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, data_path, run_cli

NEEDS = ("http://", "rooftop profile", "rooftop roofs measure", "--calibrated")  # a server, or torch + time


def readme_commands() -> list[str]:
    """The `rooftop` command lines of the README's bash blocks, in order."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            if line.startswith("rooftop"):
                commands.append(line)
    return commands


def test_readme_has_the_examples():
    commands = readme_commands()
    assert "rooftop hardware show h100-sxm" in commands
    assert not [c for c in commands if "|" in c]  # issue 10: `rooftop hardware list | show h100-sxm` failed


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    for name, parts in {
        "trace.json.gz": ("hta-traces", "sampled_rank-0.json.gz"),
        "ncu.csv": ("ncu-csv-llm-perf-opt", "kernel_0001.ncu.metrics.csv"),
        "nsys_cuda_gpu_kern_sum.csv": ("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv"),
    }.items():
        shutil.copy(data_path(*parts), tmp_path / name)
    (tmp_path / "gpt-oss-120b").mkdir()  # a checkpoint's folder, its config.json only
    shutil.copy(data_path("configs", "gpt-oss-120b", "config.json"), tmp_path / "gpt-oss-120b" / "config.json")
    from tests.ingest.test_nsys_trace import HEADER, ROWS  # real rows, not a vendored file (licence unknown)

    (tmp_path / "report_cuda_gpu_trace.csv").write_text("\n".join([HEADER, *ROWS]) + "\n", encoding="utf-8")
    return tmp_path


def test_every_readme_example_runs_as_printed(inputs: Path):
    ran = []
    for command in readme_commands():
        if any(n in command for n in NEEDS):
            continue
        args = shlex.split(command)[1:]
        p = run_cli(*args, cwd=inputs, timeout=300)
        assert p.returncode == 0, f"{command}\n{p.stderr}"
        assert "Traceback" not in p.stderr
        ran.append(command)
    assert len(ran) >= 15, ran
    assert (inputs / "report.html").exists() and (inputs / "ds.html").exists()
