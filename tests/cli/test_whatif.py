import json

import pytest

from tests.conftest import run_cli

DECODE_B1 = ("analyze", "-m", "llama-3.1-8b", "-H", "h100-sxm", "--phase", "decode", "-b", "1")


def test_what_if_text_and_json():
    p = run_cli(*DECODE_B1, "--what-if")
    assert p.returncode == 0, p.stderr
    assert "what-if, ranked by tokens/s per GPU" in p.stdout
    assert "speculative k=4 α=0.7 (ngram)" in p.stdout and "predicted: " in p.stdout
    p = run_cli(*DECODE_B1, "--what-if", "--json")
    result = json.loads(p.stdout)["results"][0]
    ranked = [r["lever"] for r in result["what_if"]["remedies"]]
    assert ranked[:3] == ["batch", "weight-quant", "speculative"]
    remedies = [r for f in result["findings"] for r in f["remedies"] if r.get("lever")]
    assert remedies and all("predicted" in r and "assumptions" in r for r in remedies)


def test_technique_sections():
    p = run_cli(
        *DECODE_B1[:-1], "64", "-p", "8192", "-c", "8192", "--chunk", "2048", "--spec-k", "4", "--spec-alpha", "0.8",
        "--pp", "2", "--rate", "10", "--json",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)["results"][0]
    assert r["speculative"]["expected_tokens"] == pytest.approx(3.3616)  # (1 − 0.8^5)/0.2
    assert r["chunked"]["chunk_tokens"] == 2048 - 64 and r["chunked"]["chunks"] == 5  # ⌈8192/1984⌉
    assert r["pipeline"]["stages"] == 2 and r["pipeline"]["microbatches"] == 2
    assert r["disaggregation"]["kv_transfer_bytes"] == 8192 * 131_072  # 1 GiB of bf16 KV per request


def test_deepseek_ep8_all_to_all_arithmetic():
    p = run_cli(
        "analyze", "-m", "deepseek-v3", "-H", "h200-sxm", "--weight-dtype", "fp8", "--phase", "decode",
        "-b", "32", "-c", "4096", "--ep", "8",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    text = " ".join(p.stdout.split())
    assert "dispatch 8 × (7168 × fp8 + 7168/128 × 4 B scales) = 59,136 B" in text
    assert "combine 8 × 7168 × bf16 = 114,688 B" in text
    assert "51,744 B + 100,352 B" in text  # 7/8 of each crosses NVLink


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-m", "deepseek-v3", "--ep", "3"), "does not divide"),
        (("--ep", "2"), "MoE"),
        (("--spec-k", "2", "--drafter", "no-such-model"), "no-such-model"),
        (("--what-if", "--calibrated"), "--calibrated"),
    ],
)
def test_bad_technique_flags_exit_2_with_one_line(args, message):
    p = run_cli("analyze", "--phase", "decode", "-b", "1", *args)
    assert p.returncode == 2
    assert message in p.stderr and "Traceback" not in p.stderr
