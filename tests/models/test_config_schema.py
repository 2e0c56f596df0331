"""The config.json schema step: issue 11's hostile configs end in one line naming file, field, value.

Before this step each case below was a traceback (ValueError, OverflowError, ZeroDivisionError,
TypeError), a hang (1e12 layers), memory growing by 600 MB/s (1e12 dense layers) or a wrong result
printed with exit 0 (negative expert width: "tokens/s -2,517.5", "MBU 117,897 %").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rooftop.errors import SpecError
from rooftop.models.config_schema import check_config
from rooftop.models.hf_config import load_config_file, spec_from_config
from rooftop.models.presets import config_dict


@pytest.mark.parametrize(
    ("preset", "field", "value", "message"),
    [
        ("llama-3.2-1b", "head_dim", float("nan"), "head_dim = nan: not a finite number"),
        ("llama-3.2-1b", "head_dim", float("inf"), "head_dim = inf: not a finite number"),
        ("llama-3.2-1b", "head_dim", 1e308, "head_dim = 1e+308: must be ≤ 4,194,304"),
        ("llama-3.2-1b", "num_hidden_layers", 1e12, "num_hidden_layers = 1000000000000: must be ≤ 4,096"),
        ("deepseek-v3", "first_k_dense_replace", 1e12, "first_k_dense_replace = 1000000000000: must be ≤ 4,096"),
        ("deepseek-v3", "moe_intermediate_size", -2048, "moe_intermediate_size = -2048: must be ≥ 0"),
        ("qwen3-30b-a3b", "decoder_sparse_step", 0.5, "decoder_sparse_step = 0.5: not an integer (got a number)"),
        ("qwen3-30b-a3b", "decoder_sparse_step", 0, "decoder_sparse_step = 0: must be ≥ 1"),
        ("qwen3-30b-a3b", "mlp_only_layers", 3, "mlp_only_layers = 3: not a list (got an integer)"),
        ("qwen3-30b-a3b", "mlp_only_layers", [1, 5000], "mlp_only_layers[1] = 5000: must be ≤ 4,095"),
        ("deepseek-v3", "n_routed_experts", "abc", "n_routed_experts = 'abc': not an integer"),
        ("deepseek-v3", "q_lora_rank", "1536", "q_lora_rank = '1536': not an integer"),
        ("llama-3.2-1b", "num_attention_heads", True, "num_attention_heads = True: not an integer"),
        ("llama-3.2-1b", "model_type", "x" * 300, "model_type = 'xxxx"),
        ("llama-3.2-1b", "hybrid_override_pattern", "M" * 5000, "hybrid_override_pattern = 'MMMM"),
        ("llama-3.2-1b", "sliding_window", -1, "sliding_window = -1: must be ≥ 0"),
        ("llama-3.2-1b", "mamba_d_state", 1e9, "mamba_d_state = 1000000000: must be ≤ 4,194,304"),
        # found by the fuzz campaign: a 400-digit integer cannot even be shown as a float
        ("llama-3.2-1b", "intermediate_size", int("9" * 400), "intermediate_size = an integer of about 401 digits"),
    ],
)
def test_hostile_field_is_one_line_naming_file_field_value(preset, field, value, message):
    config = {**config_dict(preset), field: value}
    with pytest.raises(SpecError) as info:
        spec_from_config(config, "m", where="cfg/config.json")
    text = str(info.value)
    assert text.startswith(f"cfg/config.json: {message}") and "\n" not in text, text


def test_whole_floats_are_counts_and_real_presets_pass():
    # 32.0 layers is 32 layers (some exporters write floats); every shipped preset passes unchanged
    config = {**config_dict("llama-3.2-1b"), "num_hidden_layers": 32.0}
    assert check_config(config, "x")["num_hidden_layers"] == 32
    assert spec_from_config(config, "m").layers == 32


def test_text_config_is_checked_too():
    inner = {**config_dict("llama-3.2-1b"), "num_hidden_layers": -1}
    with pytest.raises(SpecError, match=r"^w: text_config: num_hidden_layers = -1: must be ≥ 1$"):
        check_config({"text_config": inner}, "w")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"hidden_size": ' + "[" * 5000 + "]" * 5000 + "}", "nested deeper than 64 levels"),
        ('{"head_dim": 1e400}', "head_dim = inf: not a finite number"),
        ('{"head_dim": NaN}', "head_dim = nan: not a finite number"),
    ],
)
def test_files_with_hostile_text(tmp_path: Path, text, message):
    (tmp_path / "config.json").write_text(text)
    with pytest.raises(SpecError, match=message):
        load_config_file(tmp_path)


def test_cli_prints_one_line_and_exits_2(tmp_path: Path):
    from tests.conftest import run_cli

    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({**config_dict("llama-3.2-1b"), "num_hidden_layers": 1e12}))
    p = run_cli("analyze", "-m", str(folder), timeout=60)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().splitlines() == [
        f"rooftop: error: {folder / 'config.json'}: num_hidden_layers = 1000000000000: must be ≤ 4,096"
    ]
