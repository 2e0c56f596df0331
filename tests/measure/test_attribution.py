import gzip
import json
from pathlib import Path

import pytest

from rooftop.errors import TraceFormatError
from rooftop.measure.attribution import attribute, classify

TRACE = Path(__file__).parents[1] / "data" / "measure" / "tiny-llama-trace.json.gz"


def load():
    with gzip.open(TRACE, "rt", encoding="utf-8") as f:
        return json.load(f)


def test_steps_and_matmul_flops_from_shapes():
    steps = attribute(load())
    assert [(s.phase, s.index) for s in steps] == [("prefill", 0), ("decode", 0), ("decode", 1)]
    # per layer at 8 tokens: q, o 2*8*64*64 = 65,536 each; k, v 2*8*64*32 = 32,768 each;
    # gate, up, down 2*8*64*128 = 131,072 each -> 589,824; 2 layers = 1,179,648; lm_head 2*1*64*256 = 32,768
    assert steps[0].matmul_flops == 1_212_416
    # decode: 589,824 / 8 * 2 layers + 32,768 = 180,224 (equal to FlopCounterMode's, see README)
    assert steps[1].matmul_flops == 180_224


def test_every_class_is_named_and_time_is_accounted():
    step = attribute(load())[1]
    classes = {o.cls for o in step.ops}
    assert {
        "q_proj",
        "k_proj",
        "v_proj",
        "o_proj",
        "attention",
        "gate_proj",
        "up_proj",
        "down_proj",
        "act",
        "attn_norm",
        "ffn_norm",
        "final_norm",
        "lm_head",
        "kv_append",
        "embed",
    } <= classes
    assert step.op_time_s + step.gap_s == pytest.approx(step.time_s, rel=1e-6)
    q = [o for o in step.ops if o.cls == "q_proj"]
    assert len(q) == 2 and all(o.flops == 2 * 1 * 64 * 64 for o in q)  # one token: 2*64*64


def test_classify_by_module_and_aten():
    assert classify("model.layers.3.self_attn.q_proj", "aten::linear") == "q_proj"
    assert classify("model.layers.3.self_attn", "aten::scaled_dot_product_attention") == "attention"
    assert classify("model.layers.3.self_attn", "aten::mul") == "rope"
    assert classify("model.layers.3", "aten::add") == "residual"
    assert classify("", "aten::argmax") == "sample"


@pytest.mark.parametrize(
    "bad", [{}, {"traceEvents": "x"}, {"traceEvents": [{"ph": "X", "name": "a", "ts": 0, "dur": 1}]}]
)
def test_malformed_traces_raise(bad):
    with pytest.raises(TraceFormatError):
        attribute(bad)
