"""diagnose/sweep.py: the core SLO applied to a sweep grid — which cells meet it, and their goodput."""

from __future__ import annotations

import numpy as np

from rooftop.analytic.sweep import sweep_grid
from rooftop.core.slo import SLO
from rooftop.core.workload import Workload
from rooftop.diagnose.sweep import goodput, operating_point, slo_met
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset

GRID = sweep_grid(load_preset("llama-3.1-8b"), get_roofs("h100-sxm"), Workload(), [1, 8, 64], [2304], 2048, 256)


def test_a_cell_meets_the_slo_when_every_objective_holds_and_it_fits() -> None:
    tpot = GRID.tpot_s[:, 0]
    limit = float(tpot[1])  # exactly batch 8's TPOT: batch 1 and 8 meet it, 64 does not
    met = slo_met(SLO(tpot_s=limit), GRID)[:, 0]
    assert met.tolist() == [True, True, False] and bool(np.all(GRID.fits[:, 0]))
    assert slo_met(SLO(ttft_s=float(GRID.ttft_s) / 2), GRID).sum() == 0  # TTFT fails every cell


def test_goodput_is_throughput_where_the_slo_holds_and_zero_elsewhere() -> None:
    limit = float(GRID.tpot_s[1, 0])
    good = goodput(SLO(tpot_s=limit), GRID)[:, 0]
    assert good.tolist() == [GRID.tokens_per_s[0, 0], GRID.tokens_per_s[1, 0], 0.0]
    assert operating_point(GRID, SLO(tpot_s=limit)) == (1, 0)  # batch 8: the best that meets it
    assert operating_point(GRID, SLO(tpot_s=float(GRID.tpot_s[0, 0]) / 2)) is None
