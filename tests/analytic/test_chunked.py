import numpy as np
import pytest

from rooftop.analytic.chunked import chunk_starts, chunked_prefill, merge_step
from rooftop.analytic.engine import Evaluation, evaluate
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.errors import WorkloadError
from tests.analytic.toys import tiny, toy_roofs


def test_chunks_of_a_prompt():
    past, new = chunk_starts(10, 0, 4)
    assert past.tolist() == [0, 4, 8] and new.tolist() == [4, 4, 2]  # ⌈10/4⌉ = 3 chunks
    past, new = chunk_starts(10, 2, 4)
    assert past.tolist() == [2, 6] and new.tolist() == [4, 4]  # 8 uncached tokens: 2 chunks


def _only(ev: Evaluation, name: str) -> Evaluation:
    return Evaluation(ev.spec, ev.workload, ev.roofs, tuple(t for t in ev.ops if t.op.name == name))


def test_a_mixed_step_reads_the_weights_once():
    spec, roofs = tiny(), toy_roofs()
    decode = evaluate(spec, Workload(phase=Phase.DECODE, batch=1, context=3), roofs)
    chunk = evaluate(spec, Workload(phase=Phase.PREFILL, batch=1, prompt=4), roofs)
    # q_proj: decode 128 W + 16 in + 16 out = 160 B (16 s); chunk 128 + 64 + 64 = 256 B (25.6 s)
    # mixed: 128 + 80 + 80 = 288 B at 10 B/s = 28.8 s (FLOPs 2·5·64 = 640 at 1000 FLOP/s = 0.64 s)
    q = merge_step(_only(decode, "q_proj"), _only(chunk, "q_proj"), roofs)
    assert float(q) == pytest.approx(2 * 28.8)  # two layers


def test_ttft_is_the_sum_of_the_chunk_steps():
    spec, roofs = tiny(), toy_roofs()
    w = Workload(phase=Phase.PREFILL, batch=1, prompt=10)
    alone = chunked_prefill(spec, roofs, w, budget_tokens=4, decode_batch=0, context=0)
    assert alone.chunks == 3 and alone.chunk_tokens == 4
    each = [
        float(evaluate(spec, Workload(phase=Phase.PREFILL, batch=1, prompt=p + n, cached_prefix=p), roofs).time_s)
        for p, n in ((0, 4), (4, 4), (8, 2))
    ]
    assert alone.ttft_s == pytest.approx(sum(each))
    assert alone.prefill_s == pytest.approx(float(evaluate(spec, w, roofs).time_s))
    assert alone.ttft_s > alone.prefill_s  # every chunk re-reads the weights


def test_running_decodes_see_the_mixed_steps():
    spec, roofs = tiny(), toy_roofs()
    w = Workload(phase=Phase.PREFILL, batch=1, prompt=10)
    c = chunked_prefill(spec, roofs, w, budget_tokens=6, decode_batch=2, context=7)
    assert c.chunk_tokens == 4 and c.chunks == 3  # budget 6 − 2 decodes = 4 prompt tokens per step
    assert c.tpot_during_s == pytest.approx(float(np.mean(c.step_s)))
    assert c.max_itl_s == pytest.approx(float(np.max(c.step_s)))
    assert c.decode_step_s < c.tpot_during_s < c.unchunked_itl_s
    with pytest.raises(WorkloadError, match="no room"):
        chunked_prefill(spec, roofs, w, budget_tokens=2, decode_batch=2, context=7)


def test_mixed_steps_keep_each_operators_link():
    from functools import partial

    from rooftop.analytic.expert_parallel import ExpertParallel, apply_ep
    from tests.analytic.toys import tiny_moe

    spec, roofs = tiny_moe(), toy_roofs()
    ep = partial(apply_ep, layout=ExpertParallel(2, link="inter"))  # all-to-alls on the 0.5 B/s network roof
    w = Workload(phase=Phase.PREFILL, batch=1, prompt=4)
    mixed = chunked_prefill(spec, roofs, w, budget_tokens=6, decode_batch=2, context=3, transform=ep)
    alone = ep(evaluate(spec, w, roofs))
    # the chunk's dispatch alone: 4 tokens × 2 copies × (8 + 0.25) B × 1/2 remote = 33 B per layer, 66 s
    dispatch = next(t for t in alone.ops if t.op.name == "ep_dispatch")
    assert float(dispatch.time_s) == pytest.approx(33 / 0.5)
    assert mixed.ttft_s >= float(alone.time_s)  # adding decodes never hides the chunk's all-to-alls
