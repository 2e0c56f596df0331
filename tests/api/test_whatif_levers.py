import pytest
from msgspec.structs import replace

from rooftop.api.whatif_levers import (
    Context,
    Options,
    decode_of,
    lever_chunked,
    lever_flash,
    lever_kv_fp8,
    lever_weight_quant,
    prefill_of,
    state_of,
)
from rooftop.api.whatif_parallel import lever_disaggregate, lever_parallel
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.hf_config import spec_from_config
from rooftop.models.presets import load_preset

LLAMA = load_preset("llama-3.1-8b")
H100 = get_roofs("h100-sxm")


def _ctx(w: Workload, opts: Options | None = None) -> Context:
    opts = opts or Options()
    return Context(LLAMA, H100, w, opts, state_of(LLAMA, H100, w, opts))


def test_serving_point_of_each_phase():
    d = Workload(phase=Phase.DECODE, batch=8, prompt=1024, context=1300)
    assert prefill_of(d).batch == 1 and prefill_of(d).phase is Phase.PREFILL
    p = Workload(phase=Phase.PREFILL, batch=2, prompt=512)
    assert decode_of(p).context == 512 and decode_of(p).batch == 2
    base = state_of(LLAMA, H100, d, Options())
    assert base.max_itl_s == pytest.approx(base.ttft_s + base.tpot_s)  # a prompt's step between two decodes


def test_levers_that_do_not_apply_return_nothing():
    w = Workload(phase=Phase.DECODE, batch=1, context=2048, weight_dtype="int4", kv_dtype="fp8")
    ctx = _ctx(w)
    assert lever_weight_quant(ctx) == [] and lever_kv_fp8(ctx) == [] and lever_flash(ctx) == []
    assert lever_disaggregate(_ctx(Workload(phase=Phase.PREFILL))) == []
    flash = lever_flash(_ctx(replace(w, attention="materialized")))
    assert [v.name for v in flash] == ["flash attention"]


def test_a_model_without_a_kv_cache_is_not_offered_an_fp8_one():
    # Mamba2Config()'s shape: every layer a Mamba-2 mixer, no attention, so no KV cache to narrow
    mamba = spec_from_config(
        {"model_type": "mamba2", "hidden_size": 4096, "num_hidden_layers": 64, "vocab_size": 32768}, "m"
    )
    w, opts = Workload(phase=Phase.DECODE, batch=8, context=2048), Options()
    assert lever_kv_fp8(Context(mamba, H100, w, opts, state_of(mamba, H100, w, opts))) == []
    assert [v.name for v in lever_kv_fp8(_ctx(w))] == ["kv fp8"]  # Llama's cache: offered


def test_disaggregation_moves_the_kv_and_removes_the_stall():
    ctx = _ctx(Workload(phase=Phase.DECODE, batch=16, prompt=2048, context=2304))
    (v,) = lever_disaggregate(ctx)
    assert v.assumptions["kv_transfer_bytes"] == 268_435_456  # 2048 × 131,072 B
    assert v.state.ttft_s == pytest.approx(ctx.base.ttft_s + 268_435_456 / 50e9)  # over the 400 Gb/s NIC
    assert v.state.max_itl_s == ctx.base.tpot_s  # no prompt ever runs between two decode steps
    rate = 16 / (256 * ctx.base.tpot_s)  # requests/s one decode instance holds at batch 16
    assert v.assumptions["prefill_to_decode_instances"] == pytest.approx(rate * ctx.base.ttft_s)


def test_chunking_beside_running_decodes():
    ctx = _ctx(Workload(phase=Phase.DECODE, batch=64, prompt=8192, context=8192), Options(chunk_tokens=2048))
    (v,) = lever_chunked(ctx)
    assert v.assumptions["chunk_tokens"] == 1984 and v.assumptions["chunks"] == 5  # ⌈8192 / (2048 − 64)⌉
    assert v.state.max_itl_s < ctx.base.max_itl_s  # the decodes no longer wait out the whole prompt
    assert v.state.ttft_s > ctx.base.ttft_s  # the prompt pays for sharing its steps


def test_parallel_splits():
    ctx = _ctx(Workload(phase=Phase.DECODE, batch=8, context=2048))
    names = {v.name: v for v in lever_parallel(ctx)}
    assert set(names) == {"tp 2", "pp 2"}  # dense model: no EP; tp 1 ÷ 2 is no split
    tp2 = names["tp 2"].state
    assert tp2.gpus == 2 and tp2.tpot_s < ctx.base.tpot_s
    pp2 = names["pp 2"]
    assert pp2.assumptions["microbatches"] == 2 and pp2.assumptions["bubble"] == 0.0
