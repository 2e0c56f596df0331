import warnings

import pytest

from rooftop.api import analyze, workloads_for
from rooftop.api.analysis import ContextWarning
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset


def test_workloads_cartesian():
    ws = workloads_for([Phase.PREFILL, Phase.DECODE], [1, 8], [128, 512], [1024], Workload())
    assert [(w.phase.value, w.batch, w.prompt if w.phase is Phase.PREFILL else w.context) for w in ws] == [
        ("prefill", 1, 128),
        ("prefill", 1, 512),
        ("prefill", 8, 128),
        ("prefill", 8, 512),
        ("decode", 1, 1024),
        ("decode", 8, 1024),
    ]


def test_context_beyond_maximum_warns_not_refuses():
    spec = load_preset("llama-2-7b")  # max_position_embeddings 4096
    with pytest.warns(ContextWarning, match="exceeds llama-2-7b's max_position_embeddings"):
        run = analyze(spec, get_roofs("a100-80gb-sxm"), [Workload(phase=Phase.DECODE, context=8192)])
    assert run.results[0].totals is not None


def test_no_warning_within_maximum():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        analyze(load_preset("llama-3.1-8b"), get_roofs("h100-sxm"), [Workload(phase=Phase.DECODE)])
