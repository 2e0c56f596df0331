import numpy as np
import pytest

from rooftop.analytic.chunked import chunked_prefill
from rooftop.analytic.speculative import Drafter, speculate
from rooftop.analytic.sweep import sweep_grid
from rooftop.api.sweep import Cohort, sweep
from rooftop.api.sweep_whatif import transform_grid
from rooftop.api.techniques import Techniques
from rooftop.api.whatif import Options
from rooftop.core.points import Phase
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset

LLAMA = load_preset("llama-3.1-8b")
H100 = get_roofs("h100-sxm")


def test_speculation_on_every_cell():
    grid = sweep_grid(LLAMA, H100, Workload(), [1, 8, 64], [1024, 4096], 2048, 256)
    t = Techniques(Options(spec_k=3, spec_alpha=0.8, drafter=Drafter("ngram")), speculative=True)
    spec_grid = transform_grid(grid, LLAMA, H100, t)
    one = speculate(LLAMA, Workload(phase=Phase.DECODE, batch=8, context=4096), H100, 3, 0.8, Drafter("ngram"))
    assert spec_grid.tpot_s[1, 1] == pytest.approx(float(one.tpot_s))
    assert np.all(spec_grid.tpot_s < grid.tpot_s)  # n-gram drafts are free: E = 2.952 tokens per verify
    e = (1 - 0.8**4) / 0.2
    assert spec_grid.flops[1, 1] == pytest.approx(float(one.verify.total("flops")) / e)


def test_chunked_ttft_and_what_if_at_the_operating_point():
    t = Techniques(Options(chunk_tokens=512, slo=SLO(tpot_s=0.03)), chunk=True, what_if=True)
    run = sweep(LLAMA, H100, Workload(), [1, 8, 64], None, [Cohort(2048, 256)], SLO(tpot_s=0.03), techniques=t)
    r = run.results[0]
    prompt = Workload(phase=Phase.PREFILL, batch=1, prompt=2048)
    chunked = chunked_prefill(LLAMA, H100, prompt, 512, 0, 0)
    assert chunked.chunks == 4  # 2048 / 512
    assert r.extra["sweep"]["rows"][0][9] == pytest.approx(chunked.ttft_s)  # the ttft_s column
    section = r.extra["what_if"]
    assert (
        section["cell"] == {"batch": 64, "context": 2304} and section["rank_metric"] == "goodput_tokens_per_s_per_gpu"
    )
    assert any(rem.predicted for f in r.findings for rem in f.remedies)


def test_ep_sweep_admits_what_analyze_admits():
    from rooftop.api.techniques import analyze_techniques

    spec, roofs = load_preset("deepseek-v3"), get_roofs("h200-sxm")
    base = Workload(weight_dtype="fp8")
    grid = sweep_grid(spec, roofs, base, [1, 32], [2304], 2048, 256)
    assert grid.max_batch[0] == 0  # 671 GB of fp8 weights: nothing fits on one GPU without EP
    t = Techniques(Options(ep=8, ep_in_baseline=True), ep=True)
    ep_grid = transform_grid(grid, spec, roofs, t)
    run = analyze_techniques(spec, roofs, [Workload(phase=Phase.DECODE, batch=32, context=2304, weight_dtype="fp8")], t)
    assert ep_grid.max_batch[0] == run.results[0].memory["max_batch"] == 230
    assert any("ep_dispatch" == op.op.name for op in ep_grid.decode.ops)
