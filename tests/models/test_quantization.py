"""A checkpoint's quantization_config read into the dtypes its weights are stored in (models/quantization.py)."""

from __future__ import annotations

import json

import pytest

from rooftop.analytic.memory import weights_bytes_per_gpu
from rooftop.core.workload import Workload
from rooftop.models.hf_config import load_config_file
from rooftop.models.quantization import StoredWeights, _glob, _not_converted, _regex_or_name, stored_weights
from tests.conftest import data_path, run_cli


def _config(name: str) -> dict:
    return json.loads(data_path("configs", name, "config.json").read_text())


@pytest.mark.parametrize(
    ("path", "stored"),
    [
        # gpt-oss: transformers' Mxfp4 converts the routed experts only; the rest stays bf16
        ("gpt-oss-20b/config.json", ("mxfp4", "", "fp4", 32)),
        # Kimi-K2.5 (on its text_config): int4 groups of 32 for the experts; its `ignore` keeps
        # attention ("re:.*self_attn.*"), the shared experts and the dense MLP in bf16
        ("kimi-k2.5/config.json", ("compressed-tensors", "", "int4", 32)),
        # DeepSeek-V3, Qwen3-30B-A3B-FP8: fine-grained FP8 (128×128 blocks) for every linear layer
        # (Qwen's 145 modules_to_not_convert are norms, routers and lm_head)
        ("deepseek-v3/config.json", ("fp8", "fp8", "fp8", 0)),
        ("quantized/qwen3-30b-a3b-fp8.json", ("fp8", "fp8", "fp8", 0)),
        # RedHatAI's Llama-4-Scout FP8-dynamic: `ignore` names every layer's q/k/v/o: FP8 MLPs (2/3 of
        # the non-expert weights) and experts, attention bf16, which the note says
        ("quantized/llama-4-scout-17b-16e-instruct-fp8-dynamic.json", ("compressed-tensors", "fp8", "fp8", 0)),
        # NVIDIA's NVFP4 MiniMax-M2.5 (ModelOpt): `ignore` globs each layer's self_attn*: experts only
        ("quantized/minimax-m2.5-nvfp4.json", ("modelopt", "", "fp4", 16)),
        ("gemma-4-31b/config.json", ("modelopt", "fp4", "fp4", 16)),  # a dense model: its MLPs in NVFP4
        # AWQ: every linear layer of the language model (modules_to_not_convert: the vision tower)
        ("quantized/qwen2-vl-2b-instruct-awq.json", ("awq", "int4", "int4", 128)),
    ],
)
def test_real_checkpoints_say_how_their_weights_are_stored(path: str, stored: tuple[str, str, str, int]) -> None:
    got = load_config_file(data_path("configs", *path.split("/"))).stored
    assert got is not None and (got.method, got.weights, got.experts, got.group_size) == stored


def test_a_part_stored_apart_from_the_larger_one_is_noted() -> None:
    scout = load_config_file(data_path("configs", "quantized", "llama-4-scout-17b-16e-instruct-fp8-dynamic.json"))
    assert scout.notes[-1] == (
        "weights fp8 as stored (compressed-tensors); the attention is stored unquantized, counted as fp8"
    )
    assert load_config_file(data_path("configs", "gpt-oss-120b")).notes[-1] == (
        "experts fp4 as stored (mxfp4, groups of 32)"
    )


def test_an_unquantized_config_has_none_and_an_unknown_method_is_named() -> None:
    assert stored_weights(_config("llama-3")) is None
    unknown = stored_weights({"quantization_config": {"quant_method": "hqq", "nbits": 4}})
    assert unknown == StoredWeights("hqq") and not unknown.read
    assert unknown.describe() == "quantization_config 'hqq' not read: weights counted in --dtype"


def test_modules_to_not_convert_match_as_transformers_does() -> None:
    # transformers 5's should_convert_module: a regex from the start to a module boundary, or a suffix
    assert _not_converted("model.layers.*.self_attn", "model.layers.1.self_attn.q_proj")  # gpt-oss's list
    assert _not_converted("layer.1", "layer.1.attn") and not _not_converted("layer.1", "layer.11.attn")
    assert not _not_converted("gate", "model.layers.1.mlp.experts.0.gate_proj")  # MiniMax-M2's "gate" entry
    assert _not_converted("gate", "model.layers.1.mlp.gate")  # ... is the router
    assert _not_converted("lm_head", "lm_head") and not _not_converted("lm_head", "model.layers.1.mlp.gate_proj")
    assert not _not_converted("(", "model.layers.1.self_attn.q_proj")  # not a regex: a suffix test only


def test_a_regex_that_could_backtrack_for_long_is_not_run() -> None:
    # "(.*.*)*x" takes exponential time on a 40-character name: a config.json must not hang rooftop
    assert not _regex_or_name("re:(.*.*)*x", "model.layers.1.mlp.shared_experts.gate_proj")
    assert not _regex_or_name("re:" + ".*a" * 5, "model.layers.1.mlp.shared_experts.gate_proj")  # 5 repeats
    assert not _not_converted("(.+)+$x", "model.layers.1.self_attn.q_proj")
    got = stored_weights({"quantization_config": {"quant_method": "fp8", "modules_to_not_convert": ["(.*.*)*x"]}})
    assert got == StoredWeights("fp8", "fp8", "fp8")  # the pattern is not run: nothing excluded


def test_a_list_naming_a_module_in_each_layer_excludes_that_part() -> None:
    # compressed-tensors' exact names and ModelOpt's globs, whatever prefix the wrapper gives the layers
    assert _regex_or_name("language_model.model.layers.0.self_attn.q_proj", "model.layers.1.self_attn.q_proj")
    assert not _regex_or_name("language_model.model.layers.0.self_attn.q_proj", "model.layers.1.mlp.gate_proj")
    assert not _regex_or_name("lm_head", "model.layers.1.mlp.gate_proj") and _regex_or_name("lm_head", "lm_head")
    assert _regex_or_name("re:.*self_attn.*", "model.layers.1.self_attn.o_proj")
    assert _glob("model.layers.0.self_attn*", "model.layers.1.self_attn.q_proj")
    assert not _glob("model.layers.0.block_sparse_moe.gate", "model.layers.1.mlp.experts.0.gate_proj")


def test_mixed_weights_bytes_by_hand() -> None:
    spec = load_config_file(data_path("configs", "gpt-oss-120b"))
    # routed experts: 36 layers × 128 × (3·2880·2880 + 2·2880 + 2880 biases) = 114,701,598,720
    assert spec.routed_expert_params == 36 * 128 * 24_891_840 == 114_701_598_720
    rest = spec.param_count() - spec.routed_expert_params
    assert rest == 2_127_557_952
    # bf16 rest, 2 B each; MXFP4 experts at 0.5 B + one 1-byte (E8M0) scale per 32 = 0.53125 B each:
    # 4,255,115,904 + 60,935,224,320 = 65.2 GB, the size of the released checkpoint
    w = Workload(expert_dtype="fp4", quant_group_size=32)
    assert weights_bytes_per_gpu(spec, w) == 2 * rest + 0.53125 * 114_701_598_720 == 65_190_340_224
    assert weights_bytes_per_gpu(spec, Workload()) == 2 * spec.param_count()  # all bf16: 234 GB


def test_analyze_takes_the_checkpoints_dtypes() -> None:
    config = str(data_path("configs", "gpt-oss-120b", "config.json"))
    proc = run_cli("analyze", "-m", config, "-H", "h100-sxm", "--phase", "decode", "-b", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads(proc.stdout)["results"]
    w = result["workload"]
    assert (w["weight_dtype"], w["expert_dtype"], w["compute_dtype"]) == ("bf16", "fp4", "bf16")
    assert result["memory"]["fits"]  # 60.7 GiB of weights on one 80 GB H100, as gpt-oss-120b is served
    assert result["memory"]["weights_bytes"] == 65_190_340_224
    # --weight-dtype sets every weight again: 234 GB do not fit, and the title says so
    proc = run_cli("analyze", "-m", config, "-H", "h100-sxm", "--phase", "decode", "-b", "1", "--weight-dtype", "bf16")
    assert proc.returncode == 0, proc.stderr
    assert "weights bf16, KV bf16" in proc.stdout and "Does not fit" in proc.stdout
    proc = run_cli("analyze", "-m", config, "-H", "h100-sxm", "--phase", "decode", "-b", "1")
    assert "weights bf16, experts fp4, KV bf16, compute bf16" in proc.stdout


def test_does_not_fit_offers_no_single_weight_dtype_over_mixed_weights() -> None:
    # Kimi-K2.5 as stored (bf16 + int4 experts, 595 GB) on 4 H100s: 138.6 GiB of weights per GPU. A
    # --weight-dtype would set the experts too (fp8 experts are larger than int4): only --tp is offered
    config = str(data_path("configs", "kimi-k2.5", "config.json"))
    proc = run_cli("analyze", "-m", config, "-H", "h100-sxm", "--tp", "4", "--phase", "decode", "-b", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads(proc.stdout)["results"]
    assert result["memory"]["weights_bytes"] == 595_147_593_696 / 4
    (finding,) = [f for f in result["findings"] if f["code"] == "does-not-fit"]
    # at --tp 8: 595,147,593,696 / 8 B of weights (69.28 GiB) + half of tp 4's 0.144 GB of KV = 69.35 GiB
    assert finding["evidence"]["options"] == ["--tp 8 (69.4 GiB of weights and KV per GPU)"]


@pytest.mark.parametrize(
    "q",
    [
        [],
        {"quant_method": 7},
        {"quant_method": "compressed-tensors", "config_groups": "x"},
        {
            "quant_method": "compressed-tensors",
            "config_groups": {"g": {"weights": {"num_bits": "4", "group_size": "x"}}},
        },
        {"quant_method": "awq", "bits": 4, "group_size": "128", "modules_to_not_convert": "lm_head"},
        {"quant_method": "gptq", "bits": 4, "group_size": -1, "modules_to_not_convert": ["[", None, 3]},
        {"quant_method": "modelopt", "quant_algo": None, "exclude_modules": [{}]},
        {"quant_method": "bitsandbytes", "load_in_4bit": True, "llm_int8_skip_modules": ["(unclosed"]},
        {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": [4], "type": {}}}}},
        {"quant_method": "gptq", "bits": [4], "w_bit": {"a": 1}},
    ],
)
def test_malformed_quantization_configs_are_read_or_left_unread_never_raised(q: object) -> None:
    got = stored_weights({"quantization_config": q})
    assert got is None or isinstance(got, StoredWeights)


def test_the_notebook_api_takes_the_checkpoints_dtypes_too() -> None:
    from rooftop.api.notebook import analyze

    config = data_path("configs", "gpt-oss-120b", "config.json")
    (result,) = analyze(config, "h100-sxm", phase="decode", batch=1).results
    assert (result.workload["weight_dtype"], result.workload["expert_dtype"]) == ("bf16", "fp4")
    (result,) = analyze(config, "h100-sxm", phase="decode", batch=1, weight_dtype="fp8").results
    assert result.workload["weight_dtype"] == "fp8" and "expert_dtype" not in result.workload


def test_live_metrics_count_the_checkpoints_bytes() -> None:
    # `watch`, `bench` and `rules` turn the engine's tokens into bytes per token at the stored dtypes
    from rooftop.api.live_model import live_model

    live = live_model(str(data_path("configs", "gpt-oss-120b", "config.json")), "h100-sxm")
    assert live is not None
    w = live.base
    assert (w.weight_dtype, w.expert_dtype, w.quant_group_size) == ("bf16", "fp4", 32)
