"""core/slo.py: one SLO for the sweep (arrays of modelled cells) and bench (measured requests)."""

from __future__ import annotations

import numpy as np

from rooftop.core.slo import SLO


def test_scalars_meet_every_objective_that_is_set() -> None:
    slo = SLO(ttft_s=0.5, tpot_s=0.05)
    assert slo.met(0.5, 0.05) and not slo.met(0.51, 0.01) and not slo.met(0.1, 0.06)  # limits inclusive
    assert slo.met(0.1, 0.01, e2e_s=99.0)  # no e2e objective: not checked
    assert SLO(e2e_s=10.0).met(9.0, 9.0, 10.5) is False
    assert SLO().met(1e9, 1e9, 1e9) is True  # no objective at all


def test_arrays_give_a_cell_mask() -> None:
    # TPOT per cell 10, 40, 60 ms against 50 ms; TTFT 0.2 s (one prompt) against 0.5 s
    mask = SLO(ttft_s=0.5, tpot_s=0.05).met(0.2, np.array([0.010, 0.040, 0.060]))
    assert mask.tolist() == [True, True, False]


def test_json_form() -> None:
    assert SLO(tpot_s=0.05).to_dict() == {"ttft_s": None, "tpot_s": 0.05, "e2e_s": None}
