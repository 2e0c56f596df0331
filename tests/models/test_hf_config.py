import json

import pytest

from rooftop.analytic.decompose import decompose
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import SpecError
from rooftop.models.hf_config import load_config_file, spec_from_config
from tests.conftest import data_path

LLAMA = {
    "model_type": "llama",
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 128,
    "vocab_size": 100,
    "max_position_embeddings": 512,
}


def test_folder_and_file(tmp_path):
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA))
    a = load_config_file(folder)
    b = load_config_file(folder / "config.json")
    assert a == b and a.name == "my-model" and a.kv_heads == 2 and a.head_dim == 16


def test_unknown_model_type_is_read_as_llama_with_a_note():
    s = spec_from_config({**LLAMA, "model_type": "shiny"}, "x")
    assert s.notes == ("model_type 'shiny' read as a Llama-style decoder",)


@pytest.mark.parametrize(
    ("config", "match"),
    [
        ({**LLAMA, "ssm_state_size": 16}, "'ssm_state_size' announces state-space"),
        ({**LLAMA, "is_encoder_decoder": True}, "is_encoder_decoder"),
        ({k: v for k, v in LLAMA.items() if k != "hidden_size"}, "missing field 'hidden_size'"),
        ({**LLAMA, "num_hidden_layers": "two"}, "num_hidden_layers = 'two': not an integer"),
        ({**LLAMA, "num_key_value_heads": 3}, "multiple of kv_heads"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_bad_configs(config, match):
    with pytest.raises(SpecError, match=match):
        spec_from_config(config, "x", where="cfg.json")


def test_garbage_and_missing_files(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text("{not json")
    with pytest.raises(SpecError, match="not valid JSON"):
        load_config_file(bad)
    with pytest.raises(SpecError, match="no such config.json"):
        load_config_file(tmp_path / "absent")


def test_never_executes_auto_map(tmp_path):
    # auto_map points at remote code; rooftop reads the shapes and ignores the code entirely.
    s = spec_from_config({**LLAMA, "auto_map": {"AutoModelForCausalLM": "evil.Model"}}, "x")
    assert s.layers == 2


def test_multimodal_text_config_is_used():
    s = spec_from_config({"model_type": "llava", "text_config": LLAMA}, "x")
    assert s.hidden == 64


def test_nested_text_config_gets_its_class_defaults():
    # a wrapper's qwen2 text_config that leaves out its shapes gets Qwen2Config's defaults ...
    nested = {"model_type": "qwen2", "vocab_size": 1000}
    s = spec_from_config({"model_type": "wrapper", "text_config": nested}, "x")
    assert (s.hidden, s.layers, s.heads, s.kv_heads, s.ffn, s.vocab) == (4096, 32, 32, 32, 22016, 1000)
    # ... a top-level config does not: a missing shape there is an error
    with pytest.raises(SpecError, match="missing field 'hidden_size'"):
        spec_from_config(nested, "x")


def test_remote_code_naming_a_known_config_class_is_that_family() -> None:
    # Kimi-K2's config: model_type "kimi_k2", auto_map AutoConfig "configuration_deepseek.DeepseekV3Config"
    config = json.loads(data_path("configs", "kimi-k2", "config.json").read_text(encoding="utf-8"))
    spec = spec_from_config(config, "kimi-k2")
    assert spec.mla is not None and spec.moe is not None and spec.moe.experts == 384
    assert any("'kimi_k2' read as 'deepseek_v3'" in note for note in spec.notes)
    other = {**config, "auto_map": {"AutoConfig": "configuration_kimi.KimiConfig"}}
    with pytest.raises(SpecError, match="model_type 'kimi_k2' is defined by remote code"):
        spec_from_config(other, "kimi-k2")


def test_deepseek_sparse_attention_layer_types_are_full_layers_with_the_indexer() -> None:
    # nvidia/GLM-5.2-NVFP4 (ai-dynamo/aiconfigurator model_configs) lists "deepseek_sparse_attention"
    # for all 78 layers where zai-org's GLM-5.2 lists no layer_types: the same model
    config = json.loads(data_path("configs", "glm-5-dsa", "config.json").read_text(encoding="utf-8"))
    plain = spec_from_config(config, "glm-5")
    typed = spec_from_config({**config, "layer_types": ["deepseek_sparse_attention"] * 78}, "glm-5")
    assert typed.param_count() == plain.param_count() and typed.indexer == plain.indexer
    assert typed.attention_layers == 78 and typed.kv_elements_per_token == plain.kv_elements_per_token


def test_glm_5_layers_that_share_an_indexer_have_none_of_their_own() -> None:
    # transformers 5.24's GlmMoeDsaConfig saves layer_types "indexed_attention" and indexer_types;
    # GLM-5.2/5.3 run the indexer in the first three layers, then in every fourth (the others reuse
    # its top-k): index_topk_freq 4 from offset 3, or the same list written out. 57 layers share.
    config = json.loads(data_path("configs", "glm-5-dsa", "config.json").read_text(encoding="utf-8"))
    plain = spec_from_config({**config, "layer_types": ["indexed_attention"] * 78}, "glm-5")
    listed = ["full"] * 3 + (["shared"] * 3 + ["full"]) * 18 + ["shared"] * 3
    shared = spec_from_config({**config, "indexer_types": listed}, "glm-5.2")
    assert (
        spec_from_config({**config, "index_topk_freq": 4, "index_skip_topk_offset": 3}, "g").indexer == shared.indexer
    )
    assert len(shared.indexer.shared) == 57 and shared.indexer_layers == 21 and plain.indexer_layers == 78
    # per shared layer: wq_b 2048 x 32 x 128 = 8,388,608, wk 6144 x 128 = 786,432, k_norm 256 and
    # weights_proj 6144 x 32 = 196,608 -> 9,371,904 fewer parameters (transformers 5.24.0's meta builds:
    # 743,911,199,232 and 743,377,000,704, each 19,200 router-bias buffers short of rooftop's)
    assert plain.param_count() - shared.param_count() == 57 * 9_371_904 == 534_198_528
    assert plain.kv_elements_per_token - shared.kv_elements_per_token == 57 * 128  # no index key cached
    for spec, layers in ((plain, 78), (shared, 21)):
        ops = {op.name: op for op in decompose(spec, Workload(phase=Phase.DECODE, context=4096))}
        assert ops["index_score"].count == ops["index_k_proj"].count == layers
    with pytest.raises(SpecError, match="'indexer_types' must list 'full' or 'shared' for each of the 78 layers"):
        spec_from_config({**config, "indexer_types": ["full", "sparse"] * 39}, "g")


def test_a_config_nesting_its_decoder_names_where() -> None:
    # Qwen2.5-Omni-7B's config.json (its shape): the language model is thinker_config.text_config
    # (hidden 3584 x 28 layers), the speech talker talker_config (896 x 24); VILA1.5's is llm_cfg.
    omni = {
        "model_type": "qwen2_5_omni",
        "thinker_config": {"model_type": "qwen2_5_omni_thinker", "text_config": {"hidden_size": 3584, "num_hidden_layers": 28}},
        "talker_config": {"hidden_size": 896, "num_hidden_layers": 24},
    }  # fmt: skip
    with pytest.raises(
        SpecError, match="missing field 'hidden_size'; a decoder's fields are under 'thinker_config.text_config'"
    ):
        spec_from_config(omni, "omni")
    vila = {"model_type": "llava_llama", "hidden_size": 2560, "llm_cfg": {"hidden_size": 2560, "num_hidden_layers": 32}}
    with pytest.raises(SpecError, match="under 'llm_cfg': pass that part as a config.json"):
        spec_from_config(vila, "vila")


def test_a_missing_field_of_an_unknown_family_says_it_may_be_named_otherwise() -> None:
    # GPTNeoConfig().to_dict() (transformers 5.24.0) names its widths num_layers and num_heads
    neo = {"model_type": "gpt_neo", "hidden_size": 2048, "num_layers": 24, "num_heads": 16, "vocab_size": 50257}
    with pytest.raises(SpecError, match=r"missing field 'num_attention_heads' \(model_type 'gpt_neo' is no family"):
        spec_from_config(neo, "gpt-neo")
    with pytest.raises(SpecError, match=r"missing field 'num_attention_heads'$"):  # a known family: no guess
        spec_from_config({"model_type": "llama", "hidden_size": 64}, "llama")
