"""Bad input: one line on stderr naming the input and the problem, exit code 2, no traceback."""

import pytest

from tests.conftest import run_cli


def one_line_error(p, *needles):
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr
    lines = [line for line in p.stderr.strip().splitlines() if line.strip()]
    text = " ".join(lines)
    for needle in needles:
        assert needle in text, text
    return text


def test_unknown_preset_suggests():
    one_line_error(run_cli("analyze", "-m", "llama-3.1-8"), "unknown model preset", "did you mean: llama-3.1-8b")


def test_unknown_device_suggests():
    one_line_error(run_cli("analyze", "-H", "h100"), "unknown hardware 'h100'", "h100-sxm")


def test_unknown_dtype():
    one_line_error(run_cli("analyze", "--dtype", "bf17"), "bf17")


def test_negative_batch():
    one_line_error(run_cli("analyze", "--batch", "-4"), "batch")


def test_inverted_range():
    one_line_error(run_cli("analyze", "--batch", "64-1"), "inverted")


@pytest.mark.parametrize(
    ("content", "needle"),
    [("{oops", "not valid JSON"), ('{"model_type": "llama"}', "missing field"), ("", "not valid JSON")],
)
def test_garbage_config(tmp_path, content, needle):
    cfg = tmp_path / "config.json"
    cfg.write_text(content)
    one_line_error(run_cli("analyze", "-m", str(cfg)), str(cfg), needle)


def test_missing_config(tmp_path):
    one_line_error(run_cli("analyze", "-m", str(tmp_path / "nope")), "no such config.json")


def test_device_without_bandwidth():
    one_line_error(run_cli("analyze", "-H", "a10g"), "a10g has no")


def test_context_beyond_maximum_is_a_warning():
    p = run_cli("analyze", "-m", "llama-2-7b", "--phase", "decode", "-b", "1", "-c", "8192")
    assert p.returncode == 0
    assert "warning: context 8193 exceeds llama-2-7b's max_position_embeddings (4096)" in p.stderr


def test_an_error_naming_an_odd_path_stays_one_line(tmp_path):
    # the campaign's output paths with a newline, form feed or NEL in a folder name printed 3 lines
    bad = tmp_path / "a\nb\x0cc\x85d" / "r.html"
    p = run_cli("analyze", "--report", str(bad))
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert "a\\nb\\x0cc\\x85d" in p.stderr and "does not exist" in p.stderr
