"""The real vLLM of the end-to-end tests: one tiny model and one server for the whole session."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serving.vllm_proc import VLLM_PYTHON, Vllm


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Llama with a locally trained tokenizer (~15 s, no download)."""
    if not VLLM_PYTHON.exists():
        pytest.skip(f"vLLM venv not found at {VLLM_PYTHON} (set ROOFTOP_VLLM_PYTHON; see docs/serving.md)")
    out = tmp_path_factory.mktemp("tiny") / "tiny-llama"
    subprocess.run(
        [str(VLLM_PYTHON), str(Path(__file__).with_name("make_tiny_hf.py")), str(out)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


@pytest.fixture(scope="session")
def vllm(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vllm]:
    """vLLM serving ``model_dir`` without profiling; a test that stops it starts it again."""
    server = Vllm(model_dir, tmp_path_factory.mktemp("vllm") / "vllm.log")
    server.start()
    yield server
    server.stop()
