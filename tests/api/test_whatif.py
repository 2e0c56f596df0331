import pytest

from rooftop.analytic.speculative import Drafter
from rooftop.api.analysis import analyze
from rooftop.api.whatif import Options, analyze_what_if, attach, gain, what_if
from rooftop.core.points import Phase
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset

LLAMA = load_preset("llama-3.1-8b")
H100 = get_roofs("h100-sxm")
DECODE_B1 = Workload(phase=Phase.DECODE, batch=1, context=2048)


def _by_name(result):
    return {r["name"]: r for r in result.ranked}


def test_decode_at_batch_one_ranks_batching_quantisation_and_speculation():
    result = what_if(LLAMA, H100, DECODE_B1)
    assert result.rank_metric == "tokens_per_s_per_gpu"
    names = [r["name"] for r in result.ranked]
    assert names[:4] == ["batch 1 → 8", "weights int4 (W4A16)", "speculative k=4 α=0.7 (ngram)", "weights fp8"]
    base = result.baseline
    # baseline: 15.0 GB of bf16 weights / 3.35 TB/s ≈ 4.56 ms per token -> 219 tokens/s
    assert base["tpot_s"] == pytest.approx(4.564e-3, rel=1e-3)
    spec = _by_name(result)["speculative k=4 α=0.7 (ngram)"]
    e = (1 - 0.7**5) / 0.3  # 2.7731 tokens per verify step
    assert spec["assumptions"]["expected_tokens_per_verify"] == pytest.approx(e)
    assert spec["predicted"]["tpot_s"][1] == pytest.approx(spec["assumptions"]["verify_s"] / e)
    fp8 = _by_name(result)["weights fp8"]
    assert fp8["predicted"]["tpot_s"][1] == pytest.approx(base["tpot_s"] / 2, rel=0.02)  # half the weight bytes
    for r in result.ranked:
        assert set(r["predicted"]) >= {"ttft_s", "tpot_s", "tokens_per_s", "goodput_tokens_per_s_per_gpu", "fits"}
        assert all(len(v) == 2 for v in r["predicted"].values())


def test_batch_is_capped_at_what_fits():
    result = what_if(LLAMA, H100, Workload(phase=Phase.DECODE, batch=64, context=2048))
    batch = next(r for r in result.ranked if r["lever"] == "batch")
    assert batch["assumptions"] == {"batch": 227, "capped_at_max_batch": True}  # max batch at 2048 tokens
    assert batch["predicted"]["fits"] == [True, True]


def test_gain_and_ranking_metric():
    assert gain("tokens_per_s_per_gpu", 100.0, 250.0) == pytest.approx(1.5)
    assert gain("ttft_s", 0.2, 0.1) == pytest.approx(1.0)  # twice as fast
    slo = Options(slo=SLO(tpot_s=0.004))
    result = what_if(LLAMA, H100, DECODE_B1, slo)
    assert result.rank_metric == "goodput_tokens_per_s_per_gpu"
    assert result.baseline["goodput_tokens_per_s_per_gpu"] == 0.0  # 4.56 ms misses a 4 ms TPOT
    assert result.ranked[0]["predicted"]["tpot_s"][1] <= 0.004
    prefill = what_if(LLAMA, H100, Workload(phase=Phase.PREFILL, batch=1, prompt=2048))
    assert prefill.rank_metric == "ttft_s"


def test_findings_remedies_carry_the_best_variant():
    run = analyze(LLAMA, H100, [DECODE_B1])
    result = what_if(LLAMA, H100, DECODE_B1)
    findings = attach(run.results[0].findings, result)
    remedies = {r.lever: r for f in findings for r in f.remedies if r.lever}
    assert {"batch", "weight-quant", "speculative"} <= set(remedies)
    quant = remedies["weight-quant"]
    assert quant.assumptions["variant"] == "weights int4 (W4A16)"  # the better of fp8 and int4 here
    assert quant.to_dict()["predicted"]["tpot_s"][0] == pytest.approx(4.564e-3, rel=1e-3)


def test_moe_gets_expert_parallel_and_a_tp_that_fits():
    spec, roofs = load_preset("deepseek-v3"), get_roofs("h200-sxm")
    w = Workload(phase=Phase.DECODE, batch=32, context=4096, weight_dtype="fp8")
    result = what_if(spec, roofs, w)
    assert result.baseline["fits"] is False  # 671 GB of fp8 weights on one 141 GB card
    assert result.ranked[0]["name"] == "ep 8 (intra)" and result.ranked[0]["predicted"]["fits"] == [False, True]
    assert any(r["name"] == "tp 8" and r["predicted"]["fits"][1] for r in result.ranked)


def test_analyze_what_if_run_and_drafter_model():
    opts = Options(spec_k=2, spec_alpha=0.8, drafter=Drafter("model", load_preset("llama-3.2-1b")))
    run = analyze_what_if(LLAMA, H100, [DECODE_B1], opts)
    section = run.results[0].extra["what_if"]
    spec = next(r for r in section["remedies"] if r["lever"] == "speculative")
    assert spec["assumptions"]["drafter"] == "llama-3.2-1b" and spec["assumptions"]["draft_weight_bytes"] > 2e9
    assert run.command == "analyze --what-if"


def test_an_ep_baseline_keeps_ep_in_every_variant():
    spec, roofs = load_preset("deepseek-v3"), get_roofs("h200-sxm")
    w = Workload(phase=Phase.DECODE, batch=32, context=4096, weight_dtype="fp8")
    result = what_if(spec, roofs, w, Options(ep=8, ep_in_baseline=True))
    base = result.baseline
    assert base["fits"] is True  # 98.9 GB of weights per GPU once the experts are split 8 ways
    assert base["tokens_per_s_per_gpu"] == pytest.approx(32 / base["tpot_s"])  # each rank runs its own 32
    names = [r["name"] for r in result.ranked]
    assert names[0] == "batch 32 → 129" and not any(n.startswith(("tp ", "ep ", "pp ")) for n in names)
