"""Discovery (issue 10): did-you-mean, case-insensitive and HF-id model names, bare `rooftop`, -V, completion."""

from __future__ import annotations

import os

import pytest

from rooftop.models.presets import canonical_name, load_preset, resolve_model
from tests.conftest import run_cli


def test_misspelt_command_gets_a_suggestion():
    # issue 10: `rooftop anaylze` said only "No such command"
    p = run_cli("anaylze")
    assert p.returncode == 2
    assert p.stderr.strip() == (
        "rooftop: error: no such command 'anaylze' (did you mean: analyze?) (see `rooftop --help`)"
    )


def test_bare_rooftop_prints_help_and_succeeds():
    # issue 10: bare `rooftop` was an error (exit 2)
    p = run_cli()
    assert p.returncode == 0 and "rooftop — a roofline profiler" in p.stdout and "analyze" in p.stdout


def test_short_version_flag():
    p = run_cli("-V")
    assert p.returncode == 0 and p.stdout.startswith("rooftop, version ")


@pytest.mark.parametrize(
    ("given", "preset"),
    [
        ("llama-3.1-8B", "llama-3.1-8b"),
        ("LLAMA-3.1-8b", "llama-3.1-8b"),
        ("meta-llama/Llama-3.1-8B", "llama-3.1-8b"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"),
        ("meta-llama/Llama-2-70b-hf", "llama-2-70b"),
        ("Qwen/Qwen2.5-7B", "qwen2.5-7b"),
        ("no-such-model", None),
    ],
)
def test_model_names_resolve(given, preset):
    # issue 10: `llama-3.1-8B` was refused while hardware names were case-insensitive; HF ids failed
    assert canonical_name(given) == preset
    if preset:
        assert resolve_model(given) == load_preset(preset)


def test_hf_id_on_the_command_line():
    p = run_cli("analyze", "-m", "meta-llama/Llama-3.1-8B", "--phase", "decode", "-b", "1", "--json")
    assert p.returncode == 0 and '"model": "llama-3.1-8b"' in p.stdout


def _complete(words: str) -> list[str]:
    env = {"_ROOFTOP_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)}
    p = run_cli(env={**os.environ, **env})
    assert p.returncode == 0, p.stderr
    return [line.split(",", 1)[1] for line in p.stdout.splitlines()]


def test_completion_of_commands_models_and_devices():
    assert "analyze" in _complete("rooftop ana")
    assert _complete("rooftop analyze -m llama-3.1") == ["llama-3.1-405b", "llama-3.1-70b", "llama-3.1-8b"]
    assert _complete("rooftop sweep --hardware h100-s") == ["h100-sxm"]
