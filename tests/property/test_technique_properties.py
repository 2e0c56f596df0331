"""Relations the serving techniques must keep, whatever the shapes (Hypothesis)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rooftop.analytic.chunked import chunked_prefill
from rooftop.analytic.speculative import Drafter, expected_tokens, speculate
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from tests.analytic.toys import tiny, toy_roofs

alphas = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(k=st.integers(1, 16), a=alphas, b=alphas)
def test_expected_tokens_grow_with_alpha_and_stay_in_range(k, a, b):
    lo, hi = sorted((a, b))
    assert 1.0 <= expected_tokens(k, lo) <= expected_tokens(k, hi) + 1e-12 <= k + 1 + 1e-9


@given(k=st.integers(1, 8), batch=st.integers(1, 16), context=st.integers(0, 64))
@settings(max_examples=40, deadline=None)
def test_free_drafts_all_accepted_divide_the_verify_step(k, batch, context):
    w = Workload(phase=Phase.DECODE, batch=batch, context=context)
    sp = speculate(tiny(), w, toy_roofs(), k, 1.0, Drafter("ngram"))
    assert float(sp.tpot_s) == pytest.approx(float(sp.verify_s) / (k + 1))
    assert float(sp.verify_s) >= float(sp.plain_step_s)  # more tokens never cost less


@given(prompt=st.integers(2, 200), budget=st.integers(2, 64), decodes=st.integers(0, 8))
@settings(max_examples=40, deadline=None)
def test_chunking_never_makes_the_prompt_faster(prompt, budget, decodes):
    if budget <= decodes:
        return
    w = Workload(phase=Phase.PREFILL, batch=1, prompt=prompt)
    c = chunked_prefill(tiny(), toy_roofs(), w, budget, decodes, 16)
    # Σ max(compute, bytes) over chunks ≥ max over their sums, and every chunk re-reads the weights
    assert c.ttft_s >= c.prefill_s * (1 - 1e-12)
    assert c.chunks == -(-prompt // (budget - decodes))
