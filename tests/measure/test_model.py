"""Building a model from a config: what is refused, with which error, and real safetensors loading."""

import json

import pytest

from rooftop.errors import MeasurementError, SpecError
from rooftop.measure import model
from tests.measure.tiny import TINY


def test_read_config_from_dict_file_and_folder(tmp_path):
    assert model.read_config({"a": 1}) == {"a": 1}
    (tmp_path / "config.json").write_text(json.dumps(TINY))
    assert model.read_config(tmp_path) == TINY == model.read_config(tmp_path / "config.json")


@pytest.mark.parametrize(("text", "message"), [("{not json", "not valid JSON"), ("[1, 2]", "must hold an object")])
def test_bad_config_files(tmp_path, text, message):
    (tmp_path / "config.json").write_text(text)
    with pytest.raises(SpecError, match=message):
        model.read_config(tmp_path)
    with pytest.raises(SpecError, match="cannot read"):
        model.read_config(tmp_path / "missing.json")


def test_torch_dtype_names():
    torch = pytest.importorskip("torch")
    assert model.torch_dtype("bf16") is torch.bfloat16
    with pytest.raises(MeasurementError, match="fp32, bf16, fp16"):
        model.torch_dtype("int4")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({**TINY, "auto_map": {"AutoModel": "x.Y"}}, "never runs trust_remote_code"),
        ({k: v for k, v in TINY.items() if k != "model_type"}, "no model_type"),
        ({**TINY, "model_type": "no-such-arch"}, "cannot build model_type 'no-such-arch'"),
    ],
)
def test_configs_that_are_refused(config, message):
    pytest.importorskip("transformers")
    with pytest.raises(SpecError, match=message):
        model.build_model(config, "fp32", "cpu")


def test_tiny_model_has_the_config_shapes(tiny_built):
    # 2 layers × (q 64×64 + k, v 64×32 + o 64×64 + gate, up, down 64×128 + 2 norms of 64) + embed, lm_head 256×64
    # + final norm: 2 × (4096 + 2048 + 2048 + 4096 + 3 × 8192 + 128) + 2 × 16384 + 64 = 73,984 + 32,768 + 64 = 106,816
    assert sum(p.numel() for p in tiny_built.model.parameters()) == 106_816
    assert tiny_built.weights == "random" and tiny_built.dtype == "fp32" and not tiny_built.model.training


def test_real_weights_round_trip_and_mismatch(tmp_path, tiny_built):
    from safetensors.torch import save_file

    state = {k: v.clone() for k, v in tiny_built.model.state_dict().items()}
    save_file(state, str(tmp_path / "model.safetensors"))
    rebuilt = model.build_model(TINY, "fp32", "cpu", weights=tmp_path)
    assert rebuilt.weights == str(tmp_path)
    name = "model.layers.0.self_attn.q_proj.weight"
    assert rebuilt.model.state_dict()[name].equal(state[name])
    with pytest.raises(SpecError, match="no \\*.safetensors"):
        model.build_model(TINY, "fp32", "cpu", weights=tmp_path / "empty")
    save_file({"unrelated": state[name]}, str(tmp_path / "model.safetensors"))
    with pytest.raises(SpecError, match="none of the weights' names match"):
        model.build_model(TINY, "fp32", "cpu", weights=tmp_path)
